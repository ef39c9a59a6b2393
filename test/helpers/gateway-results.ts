import type { CardTokenArgs, CheckTokenArgs, ClientSessionArgs, GatewayCaller, GatewayService } from '../../src/modules/gateway/gateway-service.ts';
import { CARD_TOKEN_PARAMS, CHECK_TOKEN_PARAMS, SESSION_PARAMS } from '../../src/http/gateway/operations.ts';
import { type GatewayResult, invalidArgumentOf, sessionResult, tokenResult } from '../../src/http/gateway/results.ts';

/**
 * A GatewayService answering as the gateway's edge does: each outcome (or ValidationError) as the
 * RecurringResult record a client reads, `code` and `error`. Tests of the service assert that.
 */
export function answeringAsGateway(gateway: GatewayService) {
  return {
    getClientSessionId: (args: ClientSessionArgs, caller: GatewayCaller): Promise<GatewayResult> =>
      gateway.getClientSessionId(args, caller).then(
        (outcome) => sessionResult(outcome, SESSION_PARAMS),
        (err: unknown) => invalidArgumentOf(err, SESSION_PARAMS),
      ),
    getToken: (args: CardTokenArgs): Promise<GatewayResult> =>
      gateway.getToken(args).then(
        (outcome) => tokenResult(outcome, 'ccInfoKey'),
        (err: unknown) => invalidArgumentOf(err, CARD_TOKEN_PARAMS),
      ),
    getCheckToken: (args: CheckTokenArgs): Promise<GatewayResult> =>
      gateway.getCheckToken(args).then(
        (outcome) => tokenResult(outcome, 'checkInfoKey'),
        (err: unknown) => invalidArgumentOf(err, CHECK_TOKEN_PARAMS),
      ),
  };
}
