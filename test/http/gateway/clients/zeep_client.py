"""python zeep (Debian python3-zeep) against our WSDL.

Usage: /usr/bin/python3 zeep_client.py <wsdl-url> <username> <password>
Prints one JSON object with each call's result record. zeep uses the WSDL's first port: SOAP 1.1.
"""
import json
import sys

import zeep
from zeep.helpers import serialize_object

wsdl, username, password = sys.argv[1:4]
client = zeep.Client(wsdl)
out = {}


def record(value):
    return {k: v for k, v in serialize_object(value).items() if v is not None}


session = client.service.GetClientSessionID(Username=username, Password=password, ClientIP='198.51.100.4', UserAgent='zeep-test')
out['session'] = record(session)
sid = session.ClientSessionID
out['card'] = record(client.service.GetToken(ClientSessionID=sid, CcAccountNum='378282246310005', CcExpDate='0131', FirstName='Zed', LastName='Python'))
out['check'] = record(client.service.GetCheckToken(ClientSessionID=sid, BankRoutingNum='021000021', BankAccountNum='987654321', BankAcctType='C', BankName='Test Bank'))
out['badCheck'] = record(client.service.GetCheckToken(ClientSessionID=sid, BankRoutingNum='021000021', BankAccountNum='987654321', BankAcctType='X'))
out['expired'] = record(client.service.GetToken(ClientSessionID=sid, CcAccountNum='4242424242424242', CcExpDate='0120'))
soap12 = client.bind('Recurring', 'RecurringSoap12')
out['soap12card'] = record(soap12.GetToken(ClientSessionID=sid, CcAccountNum='6011111111111117', CcExpDate='0131'))
print(json.dumps(out))
