<?php
// PHP's own SoapClient (ext-soap) against our WSDL. Usage:
//   php php-soapclient.php <wsdl-url> <username> <password> <1.1|1.2>
// Prints one JSON object with each call's result record.
[$script, $wsdl, $username, $password, $version] = $argv;
$client = new SoapClient($wsdl, [
    'soap_version' => $version === '1.2' ? SOAP_1_2 : SOAP_1_1,
    'cache_wsdl' => WSDL_CACHE_NONE,
    'exceptions' => true,
    'trace' => true,
]);
$out = ['functions' => $client->__getFunctions()];
$session = $client->GetClientSessionID(['Username' => $username, 'Password' => $password, 'ClientIP' => '203.0.113.7', 'UserAgent' => 'php-test']);
$out['session'] = $session->GetClientSessionIDResult;
$sid = $session->GetClientSessionIDResult->ClientSessionID;
$card = $client->GetToken(['ClientSessionID' => $sid, 'CcAccountNum' => '5555 5555 5555 4444', 'CcExpDate' => '1230', 'CcNameOnCard' => 'Jo Php', 'FirstName' => 'Jo', 'LastName' => 'Php', 'CcZip' => '12345']);
$out['card'] = $card->GetTokenResult;
$check = $client->GetCheckToken(['ClientSessionID' => $sid, 'CkTransitNum' => '011000015', 'CkAccountNum' => '12345678', 'AccountType' => 'Savings', 'CkNameOnAccount' => 'Jo Php']);
$out['check'] = $check->GetCheckTokenResult;
$bad = $client->GetToken(['ClientSessionID' => $sid, 'CcAccountNum' => '4242424242424241', 'CcExpDate' => '1230']);
$out['badCard'] = $bad->GetTokenResult;
$denied = $client->GetToken(['ClientSessionID' => '00000000-0000-4000-8000-000000000000', 'CcAccountNum' => '4242424242424242', 'CcExpDate' => '1230']);
$out['denied'] = $denied->GetTokenResult;
$wrong = $client->GetClientSessionID(['Username' => $username, 'Password' => 'wrong-password-123']);
$out['wrongPassword'] = $wrong->GetClientSessionIDResult;
echo json_encode($out), "\n";
