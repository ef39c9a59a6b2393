import { accountTypeOf, type GatewayCaller, type GatewayService } from '../../modules/gateway/gateway-service.ts';
import type { Params } from './envelope.ts';
import { type GatewayResult, type ParamNames, invalidArgument, invalidArgumentOf, sessionResult, tokenResult } from './results.ts';

/**
 * The gateway's operations as the wire knows them: names, parameters (the spec's described names
 * and the names of its request samples; every one an optional string on the wire), and how the
 * parameters map onto the service. The SOAP and HTTP POST endpoints, the WSDL, the help page and
 * the node-soap benchmark server all read this one table.
 */
export interface GatewayParameter {
  name: string;
  description: string;
  /** true: in the spec's description of the operation; false: only in its request samples. */
  described: boolean;
}

export interface GatewayOperation {
  name: 'GetClientSessionID' | 'GetToken' | 'GetCheckToken';
  summary: string;
  parameters: GatewayParameter[];
  run(gateway: GatewayService, params: Params, caller: GatewayCaller): Promise<GatewayResult>;
}

/**
 * Reads parameters; collects problems (a repeated parameter, an element where text belongs, a NUL
 * character, two aliases that disagree).
 */
class ArgReader {
  readonly problems: string[] = [];
  readonly #params: Params;
  constructor(params: Params) {
    this.#params = params;
  }

  one(name: string): string | undefined {
    const p = this.#params.get(name.toLowerCase());
    if (!p) return undefined;
    if (p.structured) {
      this.problems.push(`${name} must be text.`);
      return undefined;
    }
    if (p.values.length > 1) {
      this.problems.push(`${name} is given more than once.`);
      return undefined;
    }
    const value = p.values[0];
    // PostgreSQL text cannot hold U+0000; refused here so that no operation ever stores one.
    if (value?.includes('\u0000')) {
      this.problems.push(`${name} must not contain a NUL character.`);
      return undefined;
    }
    return value;
  }

  /**
   * The first of several names for one value (the described name, then the sample's) that has
   * one; two that both have a value must agree (`same` decides).
   */
  either(names: string[], same: (a: string, b: string) => boolean = (a, b) => a.trim() === b.trim()): { value: string | undefined; name: string } {
    let found: { value: string; name: string } | undefined;
    for (const name of names) {
      const value = this.one(name);
      if (value === undefined || value.trim() === '') continue;
      if (!found) found = { value, name };
      else if (!same(found.value, value)) this.problems.push(`${found.name} and ${name} disagree; send one of them.`);
    }
    return found ?? { value: undefined, name: names[0]! };
  }
}

const digitsEqual = (a: string, b: string) => a.replace(/[\s-]/g, '') === b.replace(/[\s-]/g, '');

/** The parameter that carries each field of GetClientSessionID. */
export const SESSION_PARAMS: ParamNames = { username: 'Username', password: 'Password', clientIp: 'ClientIP', userAgent: 'UserAgent', vendor: 'Vendor' };
/** The parameter that carries each field of GetToken. */
export const CARD_TOKEN_PARAMS: ParamNames = {
  clientSessionId: 'ClientSessionID',
  cardNumber: 'CcAccountNum',
  expiry: 'CcExpDate',
  street: 'CcStreet',
  zip: 'CcZip',
  firstName: 'FirstName',
  lastName: 'LastName',
};
/** The parameter that carries each field of GetCheckToken, by its described name (a call may use the samples' alias). */
export const CHECK_TOKEN_PARAMS: ParamNames = {
  clientSessionId: 'ClientSessionID',
  routingNumber: 'BankRoutingNum',
  accountNumber: 'BankAccountNum',
  accountType: 'BankAcctType',
  checkType: 'CheckType',
  nameOnAccount: 'CkNameOnAccount',
  street: 'CkStreet',
  zip: 'CkZip',
  firstName: 'FirstName',
  lastName: 'LastName',
};

const p = (name: string, description: string, described = true): GatewayParameter => ({ name, description, described });

export const OPERATIONS: GatewayOperation[] = [
  {
    name: 'GetClientSessionID',
    summary: 'Creates a ClientSessionID that ties a payer to later tokenization calls (valid for a short time only).',
    parameters: [
      p('Username', 'Gateway user name (required).'),
      p('Password', 'Gateway user password (required).'),
      p('ClientIP', "The end user's IP address; the caller's address when omitted."),
      p('UserAgent', "The end user's browser user agent (optional)."),
      p('Vendor', "The gateway user's vendor; when sent it must match.", false),
    ],
    async run(gateway, params, caller) {
      const r = new ArgReader(params);
      const args = { username: r.one('Username'), password: r.one('Password'), clientIp: r.one('ClientIP'), userAgent: r.one('UserAgent'), vendor: r.one('Vendor') };
      if (r.problems.length) return invalidArgument(r.problems);
      try {
        return sessionResult(await gateway.getClientSessionId(args, caller), SESSION_PARAMS);
      } catch (err) {
        return invalidArgumentOf(err, SESSION_PARAMS);
      }
    },
  },
  {
    name: 'GetToken',
    summary: 'Returns a CcInfoKey for a card. Does not authorize a payment; validates the number (Luhn, brand) and the expiry date.',
    parameters: [
      p('ClientSessionID', 'From GetClientSessionID (required).'),
      p('CcAccountNum', 'Card number (required); spaces and dashes are ignored.'),
      p('CcExpDate', 'Expiry date, MMYY (required).'),
      p('CcNameOnCard', 'Name on the card (optional; neither validated nor stored).'),
      p('CcStreet', 'Billing street (optional).', false),
      p('CcZip', 'Billing postal code (optional).', false),
      p('FirstName', "Customer's first name (optional; part of the CustomerID).", false),
      p('LastName', "Customer's last name (optional; part of the CustomerID).", false),
    ],
    async run(gateway, params) {
      const r = new ArgReader(params);
      const args = {
        clientSessionId: r.one('ClientSessionID'),
        cardNumber: r.one('CcAccountNum'),
        expiry: r.one('CcExpDate'),
        // CcNameOnCard: "neither validated nor persisted" (the spec), so not even read.
        street: r.one('CcStreet'),
        zip: r.one('CcZip'),
        firstName: r.one('FirstName'),
        lastName: r.one('LastName'),
      };
      if (r.problems.length) return invalidArgument(r.problems);
      try {
        return tokenResult(await gateway.getToken(args), 'ccInfoKey');
      } catch (err) {
        return invalidArgumentOf(err, CARD_TOKEN_PARAMS);
      }
    },
  },
  {
    name: 'GetCheckToken',
    summary: 'Returns a CheckInfoKey for a US bank account, usable for ACH. Checks the routing number (ABA checksum) and the account digits; makes no micro-deposits.',
    parameters: [
      p('ClientSessionID', 'From GetClientSessionID (required).'),
      p('BankRoutingNum', 'Routing number, 9 digits (required; or CkTransitNum).'),
      p('BankAccountNum', 'Account number, 8 to 12 digits (required; or CkAccountNum).'),
      p('BankAcctType', 'C (checking) or S (savings) (required; or AccountType).'),
      p('BankName', 'Name of the bank (optional; not stored).'),
      p('CkAccountNum', 'Account number (the samples\' name for BankAccountNum).', false),
      p('CkTransitNum', 'Routing number (the samples\' name for BankRoutingNum).', false),
      p('CkNameOnAccount', 'Account holder name (optional).', false),
      p('CheckType', 'Personal, Corporate or Government (optional).', false),
      p('AccountType', 'Checking or Savings (the samples\' name for BankAcctType).', false),
      p('CkStreet', 'Account holder street (optional).', false),
      p('CkZip', 'Account holder postal code (optional).', false),
      p('FirstName', "Customer's first name (optional; part of the CustomerID).", false),
      p('LastName', "Customer's last name (optional; part of the CustomerID).", false),
    ],
    async run(gateway, params) {
      const r = new ArgReader(params);
      const routing = r.either(['BankRoutingNum', 'CkTransitNum'], digitsEqual);
      const account = r.either(['BankAccountNum', 'CkAccountNum'], digitsEqual);
      const type = r.either(['BankAcctType', 'AccountType'], (a, b) => {
        const x = accountTypeOf(a);
        return x !== undefined && x === accountTypeOf(b);
      });
      const args = {
        clientSessionId: r.one('ClientSessionID'),
        routingNumber: routing.value,
        accountNumber: account.value,
        accountType: type.value,
        // BankName: accepted and ignored, like CcNameOnCard.
        nameOnAccount: r.one('CkNameOnAccount'),
        checkType: r.one('CheckType'),
        street: r.one('CkStreet'),
        zip: r.one('CkZip'),
        firstName: r.one('FirstName'),
        lastName: r.one('LastName'),
      };
      if (r.problems.length) return invalidArgument(r.problems);
      try {
        return tokenResult(await gateway.getCheckToken(args), 'checkInfoKey');
      } catch (err) {
        return invalidArgumentOf(err, { ...CHECK_TOKEN_PARAMS, routingNumber: routing.name, accountNumber: account.name, accountType: type.name });
      }
    },
  },
];

const BY_NAME = new Map(OPERATIONS.map((op) => [op.name.toLowerCase(), op]));

/** An operation by name, case-insensitively (ASP.NET routes that way). */
export function findOperation(name: string): GatewayOperation | undefined {
  return BY_NAME.get(name.toLowerCase());
}
