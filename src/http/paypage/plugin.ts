import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ResponseCode } from '../../domain/payment-status.ts';
import { DatabaseUnavailableError, NotFoundError, findError } from '../../platform/errors.ts';
import type { Services } from '../../composition.ts';
import { type PayLink, payLinkRef } from '../../modules/paylinks/paylink-service.ts';
import type { CheckoutOutcome, SavedInstruments } from '../../modules/paylinks/checkout-service.ts';
import { WORKFLOW_MANAGE_CARDS, WORKFLOW_PAYMENT } from '../../modules/paylinks/paylink-rules.ts';
import { FormTokens, originOf } from './csrf.ts';
import {
  BANK_FIELDS,
  CARD_FIELDS,
  type FormBody,
  type FormState,
  PAYER_FIELDS,
  applyViolations,
  formValue,
  initialState,
  readSubmission,
  submittedState,
} from './form.ts';
import { setPageHeaders, newNonce } from './headers.ts';
import { type Messages, type PageLanguage, entry, fill, messagesFor, resolveLanguage } from './i18n.ts';
import { page } from './layout.ts';
import { SubmissionLimiter } from './rate-limit.ts';
import { utf8FormEntries } from '../../platform/utf8-text.ts';
import { deleteCardConfirmPage, manageCardsPage, paymentPage, tokenizePage } from './view-checkout.ts';
import { messagePage, receiptPage } from './view-pages.ts';

/**
 * The hosted pay page, GET and POST /paylink/<PayLinkId>: server-rendered HTML in the link's
 * language, its own error and not-found pages, hidden from the OpenAPI document. Registered with
 * the prefix /paylink.
 */

interface PageRequest {
  Params: { id: string };
  Querystring: { notice?: string };
  Body: FormBody | undefined;
}

const FORM_TYPE = 'application/x-www-form-urlencoded';
/** The page's forms are a few hundred bytes. */
const FORM_BODY_LIMIT = 16 * 1024;

/** A form's fields by name (a repeated name: its values in order), on an object with no prototype. */
function formBody(entries: [string, string][]): FormBody {
  const body: FormBody = Object.create(null);
  for (const [name, value] of entries) {
    const had = body[name];
    body[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value];
  }
  return body;
}

/** The fields of the save-card form (WorkflowType 3 and 4). */
const SAVE_CARD_FIELDS = ['FirstName', 'LastName', 'Street', 'Zip', 'Country', 'CardNum', 'ExpMonth', 'ExpYear'];
const NO_SAVED = { card: false, bank: false };

type PageBuilder = (nonce: string, t: Messages) => { title: string; main: string };

/** A page that only says something, with its own title and heading. */
const message = (title: string, text: string) => ({ title, main: messagePage(title, text) });

/**
 * What a form page's title says before the form's own title: "Payment declined: Secure payment",
 * "Error: ..." (field errors, a refused form), "Too many attempts: ...". Without script focus
 * stays on the page, and its title is the first thing a screen reader says.
 */
type TitleMark = 'declined' | 'tooMany';

function formTitle(t: Messages, title: string, state: FormState, mark: TitleMark | undefined): string {
  if (mark === 'declined') return fill(t.titleDeclined, { title });
  if (mark === 'tooMany') return fill(t.titleTooMany, { title });
  if (state.errors.size > 0 || state.alert?.kind === 'error') return fill(t.titleError, { title });
  return title;
}

/** "Please wait 5 minutes": Retry-After rounded up to whole minutes. */
function tooManyText(t: Messages, retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return minutes === 1 ? t.tooManyOneMinute : fill(t.tooManyMinutes, { minutes });
}

/** Sends a page: headers (CSP with a fresh nonce), status, the document. */
function sendPage(reply: FastifyReply, frameAncestors: string, status: number, link: PayLink | undefined, lang: PageLanguage, build: PageBuilder) {
  const nonce = newNonce();
  const t = messagesFor(lang);
  setPageHeaders(reply, { nonce, frameAncestors, redirectUrl: link?.redirectUrl });
  const { title, main } = build(nonce, t);
  const html = page(
    {
      lang,
      t,
      nonce,
      title,
      theme: link?.settings.theme,
      fonts: link?.settings.themeFonts,
      poweredBy: link ? { text: link.settings.poweredByText, url: link.settings.poweredByUrl } : undefined,
    },
    main,
  );
  return reply.code(status).send(html);
}

/**
 * The pay page's 400 page, for a pay link URL the router refused before any route ran (a path it
 * cannot decode, an id over the length limit): the payer sees a page with the page's headers,
 * not a bare text answer.
 */
export function payPageBadRequest(reply: FastifyReply, frameAncestors: string) {
  return sendPage(reply, frameAncestors, 400, undefined, 'en', (_n, t) => message(t.badAddressTitle, t.badAddress));
}

export async function payPagePlugin(app: FastifyInstance, opts: { services: Services }) {
  const { services } = opts;
  const { config, payLinks, payLinkCheckout: checkout } = services;
  const formTokens = new FormTokens(services.vaultService.formTokenKey(), services.clock);
  const limiter = new SubmissionLimiter(services.clock, { perLink: config.payLinkSubmitLimitPerLink, perIp: config.payLinkSubmitLimitPerIp });

  app.addHook('onRoute', (route) => {
    route.schema = { ...(route.schema ?? {}), hide: true };
  });
  // UTF-8 only, as every surface (docs/decisions.md, "Request text is UTF-8 only"): the page is
  // UTF-8, so its browsers send UTF-8, and other bytes would have been stored as U+FFFD.
  app.addContentTypeParser(FORM_TYPE, { parseAs: 'buffer', bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) => {
    const entries = utf8FormEntries(body as Buffer);
    if (entries === undefined) return done(Object.assign(new Error('The form is not UTF-8 text.'), { statusCode: 400, code: 'FORM_NOT_UTF8' }), undefined);
    done(null, formBody(entries));
  });

  const send = (reply: FastifyReply, status: number, link: PayLink | undefined, lang: PageLanguage, build: PageBuilder) =>
    sendPage(reply, config.frameAncestors, status, link, lang, build);

  const notFoundPage = (reply: FastifyReply, lang: PageLanguage = 'en') =>
    send(reply, 404, undefined, lang, (_n, t) => message(t.notFoundTitle, t.notFound));

  const gonePage = (reply: FastifyReply, link: PayLink, lang: PageLanguage) =>
    send(reply, 410, link, lang, (_n, t) => message(t.unavailableTitle, t.cancelled));

  async function receipt(reply: FastifyReply, link: PayLink, lang: PageLanguage, status = 200) {
    const payment = link.paymentId ? await services.payments.get(link.partner.id, link.paymentId) : undefined;
    const token = link.tokenId ? await services.tokens.find(link.partner.id, link.tokenId) : undefined;
    const csrfToken = formTokens.issue(link.id);
    return send(reply, status, link, lang, (_n, t) => ({ title: t.receiptTitle, main: receiptPage({ link, t, lang, csrfToken, payment, token }) }));
  }

  /** The link's form page (payment, save a card, or manage cards) with a given state. */
  async function formPage(
    reply: FastifyReply,
    link: PayLink,
    lang: PageLanguage,
    status: number,
    makeState: (saved: { card: boolean; bank: boolean }) => FormState,
    mark?: TitleMark,
  ) {
    const t = messagesFor(lang);
    const csrfToken = formTokens.issue(link.id);
    if (link.workflowType === WORKFLOW_PAYMENT) {
      const saved: SavedInstruments = await checkout.savedInstruments(link);
      const state = makeState({ card: saved.card !== undefined, bank: saved.bank !== undefined });
      let quotes: Awaited<ReturnType<typeof checkout.quotes>> | undefined;
      try {
        quotes = await checkout.quotes(link);
      } catch (err) {
        // The contract changed since the link was made: the payment would be refused too.
        reply.request.log.warn({ payLinkRef: payLinkRef(link.id), errorName: (err as Error).name }, 'pay link lines cannot be quoted');
        state.alert ??= { kind: 'error', text: fill(t.errors.linkProblem, { partner: link.partner.name }) };
      }
      return send(reply, status, link, lang, () => ({ title: formTitle(t, t.titlePayment, state, mark), main: paymentPage({ link, t, lang, csrfToken, quotes, saved, state }) }));
    }
    const state = makeState(NO_SAVED);
    if (link.workflowType === WORKFLOW_MANAGE_CARDS) {
      const cards = await checkout.cards(link);
      return send(reply, status, link, lang, () => ({ title: formTitle(t, t.titleManage, state, mark), main: manageCardsPage({ link, t, lang, csrfToken, state, cards }) }));
    }
    return send(reply, status, link, lang, () => ({ title: formTitle(t, t.titleTokenize, state, mark), main: tokenizePage({ link, t, lang, csrfToken, state }) }));
  }

  /** 303 to the partner's RedirectUrl with the responseToken and the unauthenticated hints. */
  function redirectToPartner(reply: FastifyReply, link: PayLink, responseToken: string, hints: { paymentGuid?: string; tranId?: string | null; tokenGuid?: string }) {
    const url = new URL(link.redirectUrl);
    url.searchParams.set('responseToken', responseToken);
    if (hints.paymentGuid) url.searchParams.set('PaymentGuid', hints.paymentGuid);
    if (hints.tokenGuid) url.searchParams.set('TokenGuid', hints.tokenGuid);
    if (hints.tranId) url.searchParams.set('TranId', hints.tranId);
    url.searchParams.set('Successful', 'true');
    return reply.code(303).header('Location', url.toString()).header('Cache-Control', 'no-store').header('Referrer-Policy', 'no-referrer').send();
  }

  app.get<PageRequest>('/:id', async (request, reply) => {
    let link = await payLinks.find(request.params.id);
    if (!link) return notFoundPage(reply);
    // Charged, but its submission stopped before completing it (a crash, a kill): completed now,
    // so the payer sees the receipt, not the form again.
    if (link.status === 'active' && (await payLinks.completeWithItsPayment(link.id))) {
      request.log.warn({ payLinkRef: payLinkRef(link.id) }, 'pay link completed with the successful payment its submission could not record');
      link = (await payLinks.find(link.id)) ?? link;
    }
    const lang = resolveLanguage(link.settings.language);
    if (link.status === 'cancelled') return gonePage(reply, link, lang);
    if (link.status === 'completed') return receipt(reply, link, lang);
    const t = messagesFor(lang);
    return formPage(reply, link, lang, 200, (saved) => {
      const state = initialState(link, saved);
      if (request.query.notice === 'deleted' && link.workflowType === WORKFLOW_MANAGE_CARDS) state.alert = { kind: 'ok', text: t.cardDeleted };
      return state;
    });
  });

  /**
   * The page's forms are urlencoded: any other body (JSON, text, none) is refused with a 415 page
   * before it is parsed.
   */
  async function formBodyOnly(request: FastifyRequest, reply: FastifyReply) {
    const type = String(request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type === FORM_TYPE) return;
    request.log.info({ status: 415 }, 'pay page request refused: not a form body');
    reply.header('Accept', FORM_TYPE);
    return send(reply, 415, undefined, 'en', (_n, t) => message(t.badFormTitle, t.badRequest));
  }

  app.post<PageRequest>('/:id', { bodyLimit: FORM_BODY_LIMIT, onRequest: formBodyOnly }, async (request, reply) => {
    const link = await payLinks.find(request.params.id);
    if (!link) return notFoundPage(reply);
    const lang = resolveLanguage(link.settings.language);
    const t = messagesFor(lang);
    if (link.status === 'cancelled') return gonePage(reply, link, lang);
    const body: FormBody = request.body && typeof request.body === 'object' ? request.body : {};
    const again = (status: number, alert: FormState['alert'], saved = true, mark?: TitleMark) =>
      formPage(reply, link, lang, status, (s) => ({ ...submittedState(body, saved ? s : NO_SAVED), alert }), mark);

    const origin = originOf(request);
    if (origin === 'cross' || !formTokens.verify(link.id, formValue(body, 'CsrfToken'))) {
      request.log.info({ payLinkRef: payLinkRef(link.id) }, 'pay page form refused: form token or origin');
      if (link.status === 'completed') return receipt(reply, link, lang, 403);
      // "Expired" would send a payer behind a misconfigured proxy round in circles: say which it was.
      const text = origin === 'cross' ? t.errors.crossSite : t.errors.csrf;
      // A payer whose form expired gets back what they typed (never card or account numbers), so
      // they need not type it again; only when the browser says the post came from the page
      // itself. Otherwise the link's own form: a post from another site must not be able to fill
      // in the payer's form (its e-mail, address or TranId) under a fresh form token.
      const ownValues = origin === 'same' && ['pay', 'save-card'].includes(formValue(body, 'Action') ?? '');
      return formPage(reply, link, lang, 403, (s) => ({
        ...(ownValues ? submittedState(body, link.workflowType === WORKFLOW_PAYMENT ? s : NO_SAVED) : initialState(link, s)),
        alert: { kind: 'error', text },
      }));
    }
    const quota = limiter.take(link.id, request.ip);
    if (!quota.allowed) {
      reply.header('Retry-After', String(quota.retryAfterSeconds));
      if (link.status === 'completed') return receipt(reply, link, lang, 429);
      return again(429, { kind: 'error', text: tooManyText(t, quota.retryAfterSeconds) }, true, 'tooMany');
    }

    const action = formValue(body, 'Action');
    if (link.status === 'completed') {
      if (action === 'continue') {
        const token = await checkout.reissue(link);
        if (token) {
          const payment = link.paymentId ? await services.payments.get(link.partner.id, link.paymentId) : undefined;
          return redirectToPartner(reply, link, token, { paymentGuid: link.paymentId ?? undefined, tokenGuid: link.tokenId ?? undefined, tranId: payment?.payment.tranId });
        }
      }
      return reply.code(303).header('Location', `/paylink/${link.id}`).send();
    }

    if (link.workflowType === WORKFLOW_MANAGE_CARDS && action === 'delete-card') {
      // A delete button only asks; the card goes with Confirm=yes from the confirmation page.
      if (formValue(body, 'Confirm') !== 'yes') {
        const tokenGuid = formValue(body, 'TokenGuid') ?? '';
        const card = (await checkout.cards(link)).find((c) => c.id === tokenGuid);
        if (!card) return again(404, { kind: 'error', text: t.errors.savedUnavailable }, false);
        const csrfToken = formTokens.issue(link.id);
        return send(reply, 200, link, lang, () => ({ title: t.deleteConfirmTitle, main: deleteCardConfirmPage({ link, t, csrfToken, card }) }));
      }
      try {
        await checkout.deleteCard(link, formValue(body, 'TokenGuid') ?? '');
      } catch (err) {
        if (!(err instanceof NotFoundError)) throw err;
        return again(404, { kind: 'error', text: t.errors.savedUnavailable }, false);
      }
      return reply.code(303).header('Location', `/paylink/${link.id}?notice=deleted`).send();
    }

    const submission = readSubmission(body, request.ip);
    const outcome: CheckoutOutcome =
      link.workflowType === WORKFLOW_PAYMENT ? await checkout.pay(link, submission) : await checkout.saveCard(link, submission);
    if (outcome.kind === 'paid' || outcome.kind === 'declined' || outcome.kind === 'lost' || outcome.kind === 'unknown') limiter.countAttempt(link.id);
    switch (outcome.kind) {
      case 'paid':
        return redirectToPartner(reply, link, outcome.responseToken, { paymentGuid: outcome.record.payment.id, tranId: outcome.record.payment.tranId });
      case 'saved':
        return redirectToPartner(reply, link, outcome.responseToken, { tokenGuid: outcome.token.id });
      case 'declined': {
        const code = outcome.record.payment.responseCode;
        // The link's own TranId is taken (by a payment made since the link was): no other card or
        // account can pay it, so the payer is not asked to try again.
        if (code === ResponseCode.NotProcessed && link.tranId) {
          const text = fill(t.referenceUsed, { partner: link.partner.name });
          return send(reply, 409, link, lang, () => message(t.referenceUsedTitle, text));
        }
        return again(200, { kind: 'error', text: entry(t.declined, code) ?? t.declined.other!, detail: t.tryAgain }, true, 'declined');
      }
      case 'lost': {
        // Paid, but another submission completed the link (or it was cancelled) meanwhile.
        const text = outcome.voided
          ? t.lostVoided
          : fill(t.lostNotVoided, { partner: link.partner.name, reference: outcome.record.payment.id });
        return send(reply, 409, link, lang, () => message(outcome.voided ? t.paymentCancelledTitle : t.notCancelledTitle, text));
      }
      case 'unknown': {
        const text = fill(t.unknownOutcome, { partner: link.partner.name, reference: outcome.record.payment.id });
        return send(reply, 409, link, lang, () => message(t.statusUnknownTitle, text));
      }
      case 'busy':
        return again(409, { kind: 'error', text: t.busy });
      case 'unavailable':
        if (outcome.status === 'cancelled') return gonePage(reply, link, lang);
        return reply.code(303).header('Location', `/paylink/${link.id}`).send();
      case 'invalid':
        return formPage(reply, link, lang, 422, (saved) => {
          const state = submittedState(body, link.workflowType === WORKFLOW_PAYMENT ? saved : NO_SAVED);
          applyViolations(state, outcome.violations, t, shownFields(link, state), link.partner.name);
          return state;
        });
    }
  });

  app.setNotFoundHandler((request, reply) => {
    if (/^\/paylink\/[^/?]+\/?(\?|$)/i.test(request.url)) {
      reply.header('Allow', 'GET, HEAD, POST');
      return send(reply, 405, undefined, 'en', (_n, t) => message(t.badMethodTitle, t.badMethod));
    }
    return notFoundPage(reply);
  });

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    // A refusal of the request itself comes first, as on the API and the gateway: a payer's form
    // post cut off halfway (tab closed, network lost) fails with ECONNRESET and status 400, and
    // must not be logged as a database outage.
    const refused = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : undefined;
    // An unreachable database is 503 with Retry-After, one warn line, as on the API.
    const unavailable = refused === undefined && findError(error, DatabaseUnavailableError) !== undefined;
    const status = unavailable ? 503 : (refused ?? 500);
    if (unavailable) {
      request.log.warn({ errorName: error.name }, 'database unavailable: pay page answered 503');
      request.server.databaseAvailability.refused();
      reply.header('Retry-After', '5');
    } else if (status === 500) request.log.error({ err: error }, 'pay page error');
    else request.log.info({ code: error.code, status }, 'pay page request refused');
    return send(reply, status, undefined, 'en', (_n, t) =>
      unavailable
        ? message(t.serviceUnavailableTitle, t.serviceUnavailable)
        : status >= 500
          ? message(t.serverErrorTitle, t.serverError)
          : status === 429
            ? message(t.tooManyTitle, t.tooMany)
            : message(t.badFormTitle, t.badRequest),
    );
  });
}

/** The fields the form shows for this submission: their violations go on the fields. */
function shownFields(link: PayLink, state: FormState): Set<string> {
  if (link.workflowType !== WORKFLOW_PAYMENT) return new Set(SAVE_CARD_FIELDS);
  const fields = [...PAYER_FIELDS];
  if (state.method === 'card' && !state.useSavedCard) fields.push(...CARD_FIELDS);
  if (state.method === 'ach' && !state.useSavedBank) fields.push(...BANK_FIELDS);
  if (link.settings.showTransactionId && !link.tranId) fields.push('TranId');
  return new Set(fields);
}
