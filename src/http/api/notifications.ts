import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Services } from '../../composition.ts';
import type { NotificationConfig } from '../../modules/notifications/config-service.ts';
import type { NotificationRecord } from '../../modules/notifications/notification-service.ts';
import { MAX_RETRIES } from '../../modules/notifications/retry-schedule.ts';
import { REDELIVER_MAX } from '../../modules/notifications/notification-service.ts';
import { URL_MAX_LENGTH } from '../../modules/notifications/url-rules.ts';
import { NotFoundError } from '../../platform/errors.ts';
import { JSON_CONSUMES, Nullable, isoUtc, notFound } from './wire.ts';

/**
 * PUT and GET /api/notificationConfig, POST /api/notificationTest, GET /api/notifications,
 * POST /api/notificationRedeliver, GET and POST /api/notificationSecret (docs/notifications.md).
 */

const TAGS = ['Notifications'];

const ConfigRequestItem = Type.Object(
  {
    NotificationConfigId: Type.Optional(Type.Integer({ format: 'int32', description: 'One of your configs, to change it (or remove it with IsDeleted); absent: a new config.' })),
    NotificationConfigurationTypeId: Type.String({ description: 'Always "1" (payment status).', examples: ['1'] }),
    NotificationProtocolTypeId: Type.String({ description: '"1": web (an HTTP POST of JSON). "2" (e-mail) is not supported (400).', examples: ['1'] }),
    NotificationUrl: Type.Optional(
      Type.String({ maxLength: 2048, description: `Absolute https URL (http only outside production), at most ${URL_MAX_LENGTH} characters, no credentials, not a private address.` }),
    ),
    Retries: Type.Optional(Type.Integer({ description: `How many times a failed notification is tried again: 0 to ${MAX_RETRIES}, default 10.` })),
    AccessToken: Type.Optional(Nullable(Type.String({ description: 'Sent as the AccessToken header of every notification to this URL. On a change: absent keeps it, null or "" removes it.' }))),
    IsDeleted: Type.Optional(Type.Boolean({ description: 'true removes the config named by NotificationConfigId; its notifications not yet sent are cancelled.' })),
  },
  { title: 'NotificationConfigRequestItem' },
);

const ConfigRequest = Type.Object(
  { NotificationConfigs: Type.Array(ConfigRequestItem, { maxItems: 20 }) },
  { title: 'NotificationConfigRequest' },
);

const ConfigItem = Type.Object(
  {
    NotificationConfigId: Type.Integer({ format: 'int32' }),
    NotificationConfigurationTypeId: Type.String(),
    NotificationProtocolTypeId: Type.String(),
    NotificationUrl: Type.String(),
    Retries: Type.Integer(),
    AccessToken: Nullable(Type.String({ description: 'Masked: only its last 4 characters (of a token of 12 or more), never the whole token.' })),
    IsDeleted: Type.Boolean(),
    IsPaused: Type.Boolean({ description: 'An operator paused it: its notifications wait.' }),
    CreatedDate: Type.String({ format: 'date-time' }),
    ModifiedDate: Type.String({ format: 'date-time' }),
  },
  { title: 'NotificationConfig' },
);

const ConfigResponse = Type.Object({ NotificationConfigs: Type.Array(ConfigItem) }, { title: 'NotificationConfigResponse' });

const TestRequest = Type.Object(
  {
    Url: Type.String({ maxLength: 2048 }),
    AccessToken: Type.Optional(Type.String()),
    Payload: Type.Optional(Type.Unknown({ description: 'The JSON sent, as it is; default {}.' })),
  },
  { title: 'NotificationTestRequest' },
);

const TestResponse = Type.Object(
  {
    Delivered: Type.Boolean({ description: 'The receiver answered 2xx within NOTIFICATION_TIMEOUT.' }),
    StatusCode: Nullable(Type.Integer({ description: "The receiver's HTTP status; null when it gave none." })),
    ElapsedMs: Type.Integer(),
    Error: Nullable(Type.String({ description: 'Why there was no answer (connection refused, timed out, ...).' })),
  },
  { title: 'NotificationTestResponse' },
);

const HistoryQuery = Type.Object({
  paymentId: Type.Optional(Type.Integer({ format: 'int32', description: 'PaymentId.' })),
  paymentExternalId: Type.Optional(Type.String({ maxLength: 100, description: "PaymentExternalId (the payment's TransactionId)." })),
});

const Notification = Type.Object(
  {
    NotificationId: Type.Integer({ format: 'int64' }),
    NotificationGuid: Type.String({ format: 'uuid', description: 'Sent as the Payments-Event-Id header: the same on every attempt and redelivery.' }),
    NotificationConfigId: Type.Integer({ format: 'int32' }),
    CreatedDate: Type.String({ format: 'date-time' }),
    ModifiedDate: Type.String({ format: 'date-time' }),
    Payload: Nullable(Type.String({ description: 'The JSON text sent; null while a recurring charge waits for its profile.' })),
    RetryCount: Type.Integer({ description: 'Retries made.' }),
    DeliveredDate: Nullable(Type.String({ format: 'date-time', description: 'When a 2xx came; null until then.' })),
    NotificationUrl: Type.String(),
    PaymentId: Type.Integer({ format: 'int32' }),
    PaymentExternalId: Nullable(Type.String()),
    Status: Type.String({ enum: ['Waiting', 'Pending', 'Delivered', 'Failed', 'Cancelled'], description: 'Pending: due or being retried; Failed: retries spent; Cancelled: its config was removed.' }),
    NextAttemptDate: Nullable(Type.String({ format: 'date-time', description: 'When a pending one is tried next.' })),
    LastStatusCode: Nullable(Type.Integer({ description: "The receiver's last HTTP status." })),
    LastError: Nullable(Type.String({ description: 'Why the last attempt failed.' })),
  },
  { title: 'Notification' },
);

const RedeliverRequest = Type.Object(
  { NotificationIds: Type.Array(Type.Integer({ format: 'int64' }), { minItems: 1, maxItems: REDELIVER_MAX }) },
  { title: 'NotificationRedeliverRequest' },
);

const RedeliverResponse = Type.Object(
  {
    Redelivered: Type.Array(Notification, { description: 'Due again now, with RetryCount 0.' }),
    NotRedelivered: Type.Array(Type.Object({ NotificationId: Type.Integer({ format: 'int64' }), Reason: Type.String() }), {
      description: 'Still on their way (pending or waiting), or cancelled.',
    }),
  },
  { title: 'NotificationRedeliverResponse' },
);

const SecretInfo = Type.Object(
  {
    SigningSecret: Type.Optional(Type.String({ description: 'The new secret: answered this once, never again.' })),
    CreatedDate: Type.String({ format: 'date-time' }),
    PreviousSecretExpiresDate: Nullable(Type.String({ format: 'date-time', description: 'Until then the previous secret signs too (a second v1).' })),
  },
  { title: 'NotificationSecret' },
);

const STATUS_WIRE = { waiting: 'Waiting', pending: 'Pending', delivered: 'Delivered', failed: 'Failed', cancelled: 'Cancelled' } as const;

function configToWire(c: NotificationConfig): Static<typeof ConfigItem> {
  return {
    NotificationConfigId: c.id,
    NotificationConfigurationTypeId: '1',
    NotificationProtocolTypeId: '1',
    NotificationUrl: c.url,
    Retries: c.retries,
    AccessToken: c.accessTokenHint,
    IsDeleted: false,
    IsPaused: c.paused,
    CreatedDate: isoUtc(c.createdAt),
    ModifiedDate: isoUtc(c.updatedAt),
  };
}

function notificationToWire(n: NotificationRecord): Static<typeof Notification> {
  return {
    NotificationId: n.id,
    NotificationGuid: n.guid,
    NotificationConfigId: n.configId,
    CreatedDate: isoUtc(n.createdAt),
    ModifiedDate: isoUtc(n.modifiedAt),
    Payload: n.payload,
    RetryCount: n.retryCount,
    DeliveredDate: n.deliveredAt && isoUtc(n.deliveredAt),
    NotificationUrl: n.url,
    PaymentId: n.paymentId,
    PaymentExternalId: n.paymentExternalId,
    Status: STATUS_WIRE[n.status],
    NextAttemptDate: n.status === 'pending' ? isoUtc(n.nextAttemptAt) : null,
    LastStatusCode: n.lastStatusCode,
    LastError: n.lastError,
  };
}

export function notificationRoutes(app: FastifyInstance, services: Services) {
  app.put<{ Body: Static<typeof ConfigRequest> }>(
    '/notificationConfig',
    {
      config: { idempotent: true },
      schema: {
        tags: TAGS,
        operationId: 'putNotificationConfig',
        summary: "Save the partner's notification URLs.",
        description:
          'Each item without NotificationConfigId adds a URL; with it, changes that config, or removes it with IsDeleted. Every change of a ' +
          "payment's ProcessStatus or PaymentResult is then POSTed to each URL, signed (docs/notifications.md). Answers the partner's configs.",
        consumes: JSON_CONSUMES,
        body: ConfigRequest,
        response: { 200: ConfigResponse },
      },
    },
    async (request) => {
      const saved = await services.notificationConfigs.save(
        request.partner.id,
        request.body.NotificationConfigs.map((c) => ({
          notificationConfigId: c.NotificationConfigId,
          notificationConfigurationTypeId: c.NotificationConfigurationTypeId,
          notificationProtocolTypeId: c.NotificationProtocolTypeId,
          notificationUrl: c.NotificationUrl,
          retries: c.Retries,
          accessToken: c.AccessToken,
          isDeleted: c.IsDeleted === true,
        })),
      );
      return { NotificationConfigs: saved.map(configToWire) };
    },
  );

  app.get(
    '/notificationConfig',
    {
      schema: {
        tags: TAGS,
        operationId: 'getNotificationConfig',
        summary: "The partner's notification URLs (an extension).",
        description: 'AccessTokens are masked.',
        response: { 200: ConfigResponse },
      },
    },
    async (request) => ({ NotificationConfigs: (await services.notificationConfigs.list(request.partner.id)).map(configToWire) }),
  );

  app.post<{ Body: Static<typeof TestRequest> }>(
    '/notificationTest',
    {
      schema: {
        tags: TAGS,
        operationId: 'testNotification',
        summary: 'POST a payload once to a URL now, signed, and say what the receiver did.',
        description: 'The URL rules of a config apply (no private addresses). Nothing is stored and nothing is retried.',
        consumes: JSON_CONSUMES,
        body: TestRequest,
        response: { 200: TestResponse },
      },
    },
    async (request) => {
      const result = await services.notificationConfigs.test(request.partner.id, { url: request.body.Url, accessToken: request.body.AccessToken, payload: request.body.Payload });
      return { Delivered: result.ok, StatusCode: result.statusCode, ElapsedMs: result.ms, Error: result.error ?? null };
    },
  );

  app.get<{ Querystring: Static<typeof HistoryQuery> }>(
    '/notifications',
    {
      schema: {
        tags: TAGS,
        operationId: 'getNotifications',
        summary: "A payment's notifications, oldest first.",
        description: 'By paymentId and/or paymentExternalId (400 when neither is given); 404 when the payment has none, or is not yours.',
        querystring: HistoryQuery,
        response: { 200: Type.Array(Notification), ...notFound },
      },
    },
    async (request) => {
      const found = await services.notifications.history(request.partner.id, { paymentId: request.query.paymentId, paymentExternalId: request.query.paymentExternalId });
      return found.map(notificationToWire);
    },
  );

  app.post<{ Body: Static<typeof RedeliverRequest> }>(
    '/notificationRedeliver',
    {
      config: { idempotent: true },
      schema: {
        tags: TAGS,
        operationId: 'redeliverNotifications',
        summary: 'Send delivered or failed notifications again (an extension).',
        description:
          'Each is due at once with RetryCount 0 and its retries afresh, with the same NotificationGuid (Payments-Event-Id): a receiver that ' +
          'de-duplicates sees the same event. Pending ones are already on their way. 404 when none of the ids is one of yours.',
        consumes: JSON_CONSUMES,
        body: RedeliverRequest,
        response: { 200: RedeliverResponse, ...notFound },
      },
    },
    async (request) => {
      const { redelivered, unchanged } = await services.notifications.redeliver(request.body.NotificationIds, request.partner.id);
      return {
        Redelivered: redelivered.map(notificationToWire),
        NotRedelivered: unchanged.map((n) => ({ NotificationId: n.id, Reason: n.status === 'cancelled' ? 'Its notification URL was removed.' : 'It is on its way already.' })),
      };
    },
  );

  app.get(
    '/notificationSecret',
    {
      schema: {
        tags: TAGS,
        operationId: 'getNotificationSecret',
        summary: "When the partner's signing secret was made (never the secret itself).",
        description: '404 when there is none yet: POST /api/notificationSecret makes one and answers it.',
        response: { 200: SecretInfo, ...notFound },
      },
    },
    async (request) => {
      const info = await services.notificationConfigs.secretInfo(request.partner.id);
      if (!info) throw new NotFoundError('No signing secret yet.');
      return { CreatedDate: isoUtc(info.createdAt), PreviousSecretExpiresDate: info.previousExpiresAt && isoUtc(info.previousExpiresAt) };
    },
  );

  // Not idempotent on purpose: a replayed answer would be the stored secret, and answers are kept
  // in the database as they were sent.
  app.post(
    '/notificationSecret',
    {
      schema: {
        tags: TAGS,
        operationId: 'rotateNotificationSecret',
        summary: 'Make a new signing secret, answered this once.',
        description:
          'The previous secret keeps signing for 24 hours (each notification then carries two v1 signatures), so receivers can switch without losing any.',
        response: { 200: SecretInfo },
      },
    },
    async (request) => {
      const info = await services.notificationConfigs.rotateSecret(request.partner.id);
      return { SigningSecret: info.secret, CreatedDate: isoUtc(info.createdAt), PreviousSecretExpiresDate: info.previousExpiresAt && isoUtc(info.previousExpiresAt) };
    },
  );
}
