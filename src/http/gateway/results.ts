import type { LoginRefusal, SessionOutcome, TokenOutcome } from '../../modules/gateway/gateway-service.ts';
import { ValidationError } from '../../platform/errors.ts';

/** The gateway's result codes (the spec's list). `code` is always one of these. */
export const GATEWAY_CODES = [
  'OK',
  'Unknown_Error',
  'Access_Denied',
  'Invalid_Login',
  'Invalid_User_Status',
  'Invalid_User',
  'User_Not_Found',
  'Username_Already_In_Use',
  'Username_Has_Invalid_Characters',
  'Not_Enough_Privilege',
  'Invalid_PartnerID',
  'Invalid_VendorID',
  'Invalid_Argument',
  'Invalid_Record',
  'Transaction_Type_Not_Supported_By_Host',
  'Internal_Error',
  'Invalid_ProcessorID',
  'Processor_Not_Found',
  'InValidPassword',
] as const;
export type GatewayCode = (typeof GATEWAY_CODES)[number];

/** What an operation answers; written as the RecurringResult record. */
export interface GatewayResult {
  code: GatewayCode;
  error?: string;
  customerId?: string;
  clientSessionId?: string;
  customerKey?: string;
  ccInfoKey?: string;
  checkInfoKey?: string;
  vendor?: string;
  username?: string;
}

/** The parameter name the caller used for each of a service's fields (an alias when it sent one). */
export type ParamNames = Readonly<Record<string, string>>;

export function invalidArgument(problems: string[]): GatewayResult {
  return { code: 'Invalid_Argument', error: problems.join(' ') };
}

/**
 * A service's ValidationError as Invalid_Argument: its messages in order, each `{field}` written
 * as the parameter the caller used. Any other error is thrown on.
 */
export function invalidArgumentOf(err: unknown, names: ParamNames): GatewayResult {
  if (!(err instanceof ValidationError)) throw err;
  return invalidArgument(err.violations.map((v) => v.message.replace(/\{([A-Za-z_]\w*)\}/g, (_m, field: string) => names[field] ?? field)));
}

const SESSION_DENIED = 'ClientSessionID is missing, unknown or expired; call GetClientSessionID for a new one.';

function loginRefused(refusal: LoginRefusal, names: ParamNames): GatewayResult {
  switch (refusal) {
    case 'tooManyAttempts':
      return { code: 'Access_Denied', error: 'Too many GetClientSessionID attempts from this address; try again in a minute.' };
    case 'busy':
      return { code: 'Access_Denied', error: 'The server is busy checking other logins; try GetClientSessionID again in a few seconds.' };
    case 'invalidLogin':
      return { code: 'Invalid_Login', error: 'Invalid Username or Password.' };
    case 'locked':
      return { code: 'Invalid_Login', error: `Too many failed logins for this ${names.username ?? 'Username'}; try again later.` };
    case 'userDisabled':
      return { code: 'Invalid_User_Status', error: 'The gateway user is disabled.' };
    case 'vendorMismatch':
      return { code: 'Invalid_VendorID', error: `${names.vendor ?? 'Vendor'} does not match the gateway user's vendor.` };
  }
}

/** GetClientSessionID's record. */
export function sessionResult(outcome: SessionOutcome, names: ParamNames): GatewayResult {
  if (!outcome.ok) return loginRefused(outcome.refusal, names);
  return { code: 'OK', error: 'ClientSessionID generated successfully', clientSessionId: outcome.clientSessionId, username: outcome.username };
}

/** GetToken's record (the key is a CcInfoKey) or GetCheckToken's (a CheckInfoKey). */
export function tokenResult(outcome: TokenOutcome, key: 'ccInfoKey' | 'checkInfoKey'): GatewayResult {
  if (!outcome.ok) return { code: 'Access_Denied', error: SESSION_DENIED };
  const { customerId, clientSessionId, customerKey, gatewayKey } = outcome;
  return key === 'ccInfoKey' ? { code: 'OK', customerId, clientSessionId, customerKey, ccInfoKey: gatewayKey } : { code: 'OK', customerId, clientSessionId, customerKey, checkInfoKey: gatewayKey };
}
