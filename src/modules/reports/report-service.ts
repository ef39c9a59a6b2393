import type { Readable } from 'node:stream';
import type { AuthenticatedPartner } from '../../domain/partner.ts';
import { Rule, type RuleViolation, firstPerField } from '../../domain/rules.ts';
import type { Clock } from '../../platform/clock.ts';
import { BusyError, NotFoundError, ValidationError } from '../../platform/errors.ts';
import type { Logger } from '../../platform/logging.ts';
import { GUID } from '../../platform/ids.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type ReportCriteria, type ReportPaging, type ReportRequestInput, readCriteria } from './report-criteria.ts';
import { EXPORT_CONTENT_TYPES, EXPORT_EXTENSIONS, type ExportFormat, csvExport, excelExport } from './report-export.ts';
import type { ReportRow } from './report-fields.ts';
import type { ReportRepository, ReportScope } from './report-repository.ts';

export type { ReportRow } from './report-fields.ts';
export type { ExportFormat } from './report-export.ts';

/**
 * Which payments a report covers: the partner's integration sources (all of them, or those
 * named), or one of its organizations.
 */
export type ReportScopeInput = { kind: 'sources'; integrationSourceIds?: readonly string[] } | { kind: 'organization'; organizationId: string };

export interface ReportPageInput extends ReportRequestInput {
  /** From 1; 0 is the first page too. */
  pageIndex?: number;
  pageSize?: number;
}

export interface ReportExportInput extends ReportRequestInput {
  /** csv (the default) or excel, in any case. */
  format?: string;
}

export interface ReportPage {
  rows: ReportRow[];
  totalCount: number;
  pageIndex: number;
  pageSize: number;
  totalPages: number;
}

export interface ReportFile {
  format: ExportFormat;
  contentType: string;
  fileName: string;
  /** The file's bytes; destroying it stops the query. */
  stream: Readable;
}

/** Exports running at once in this process, unless configured. */
export const DEFAULT_EXPORT_CONCURRENCY = 2;

/** How long an export may run, unless configured: a million rows take seconds to minutes. */
export const DEFAULT_EXPORT_MAX_MS = 60 * 60_000;

/**
 * How many of the process's export slots one partner may hold: all but one, so that a partner
 * whose clients read slowly (never idle long enough to be cut off) cannot shut the others out.
 */
export const partnerExportSlots = (concurrency: number) => Math.max(1, concurrency - 1);

const NOT_FOUND = 'No data found.';

/**
 * Transaction reports (issue 28): a page of a partner's payments as JSON, or all of them as a
 * CSV or Excel file. A partner sees only its own payments; a source or organization that is not
 * its own is the same 404 as one that does not exist.
 */
export class ReportService {
  readonly #repository: ReportRepository;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #exportConcurrency: number;
  readonly #exportMaxMs: number;
  /** Exports running, per partner: their sum is the process's. */
  readonly #exportsByPartner = new Map<string, number>();

  constructor(deps: { repository: ReportRepository; clock: Clock; log: Logger; exportConcurrency?: number; exportMaxMs?: number }) {
    this.#repository = deps.repository;
    this.#clock = deps.clock;
    this.#log = deps.log;
    this.#exportConcurrency = deps.exportConcurrency ?? DEFAULT_EXPORT_CONCURRENCY;
    this.#exportMaxMs = deps.exportMaxMs ?? DEFAULT_EXPORT_MAX_MS;
  }

  async page(partner: AuthenticatedPartner, scopeInput: ReportScopeInput, input: ReportPageInput): Promise<ReportPage> {
    const violations: RuleViolation[] = [];
    const criteria = this.#criteria(input, violations);
    const paging = readPaging(input, violations);
    if (violations.length > 0 || !criteria || !paging) throw new ValidationError(firstPerField(violations));
    const scope = await this.#scope(partner, scopeInput);
    const { rows, total } = await this.#repository.page(scope, criteria, paging);
    return { rows, totalCount: total, pageIndex: paging.pageIndex, pageSize: paging.pageSize, totalPages: Math.ceil(total / paging.pageSize) };
  }

  /**
   * Every payment of the report as a file. The query has answered before this returns (its first
   * rows, or COPY's first bytes), so a database that cannot answer fails the request rather than
   * the file half-way.
   */
  async export(partner: AuthenticatedPartner, scopeInput: ReportScopeInput, input: ReportExportInput): Promise<ReportFile> {
    const violations: RuleViolation[] = [];
    const criteria = this.#criteria(input, violations);
    const format = readFormat(input.format, violations);
    if (violations.length > 0 || !criteria || !format) throw new ValidationError(firstPerField(violations));
    const scope = await this.#scope(partner, scopeInput);
    let running = 0;
    for (const n of this.#exportsByPartner.values()) running += n;
    if (running >= this.#exportConcurrency) {
      throw new BusyError(`${this.#exportConcurrency} exports are running, as many as run at once; try again shortly.`);
    }
    const ofPartner = this.#exportsByPartner.get(partner.id) ?? 0;
    if (ofPartner >= partnerExportSlots(this.#exportConcurrency)) {
      throw new BusyError(`You have ${ofPartner} ${ofPartner === 1 ? 'export' : 'exports'} running, as many as one partner may run at once; try again when one has ended.`);
    }
    this.#exportsByPartner.set(partner.id, ofPartner + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (this.#exportsByPartner.get(partner.id) ?? 1) - 1;
      if (left > 0) this.#exportsByPartner.set(partner.id, left);
      else this.#exportsByPartner.delete(partner.id);
    };
    try {
      const created = this.#clock.now();
      let stream: Readable;
      if (format === 'csv') {
        stream = csvExport(await this.#repository.csv(scope, criteria));
      } else {
        const batches = await this.#repository.batches(scope, criteria);
        // The first rows before the answer: a database that cannot answer fails the request, not the file half-way.
        const first = await batches.next().catch(async (err: unknown) => {
          await batches.close();
          throw err;
        });
        stream = excelExport(batches, first, created);
      }
      const startedAt = this.#clock.now().getTime();
      // A deadline on the whole file, beside the edge's idle cut: a client that reads a little
      // now and then is never idle, and the export holds a slot, a connection and a snapshot.
      let pastDeadline = false;
      const deadline = setTimeout(() => {
        pastDeadline = true;
        stream.destroy(new Error(`the export ran past its deadline (${this.#exportMaxMs} ms)`));
      }, this.#exportMaxMs);
      deadline.unref();
      stream.once('close', () => {
        clearTimeout(deadline);
        release();
        // Whether the whole file went out: a client that went away mid-file stopped the query.
        this.#log.info({ partnerId: partner.id, format, complete: stream.readableEnded, pastDeadline, ms: this.#clock.now().getTime() - startedAt }, 'report export closed');
      });
      return { format, contentType: EXPORT_CONTENT_TYPES[format], fileName: fileName(scope, format, created), stream };
    } catch (err) {
      release();
      throw err;
    }
  }

  #criteria(input: ReportRequestInput, violations: RuleViolation[]): ReportCriteria | undefined {
    const read = readCriteria(input);
    violations.push(...read.violations);
    return read.criteria;
  }

  /** The partner's scope; a source or organization not its own is not found, as one that does not exist. */
  async #scope(partner: AuthenticatedPartner, input: ReportScopeInput): Promise<ReportScope> {
    if (input.kind === 'organization') {
      const id = input.organizationId.trim().toLowerCase();
      if (!GUID.test(id) || !(await this.#repository.isPartnerOrganization(partner.id, id))) throw new NotFoundError(NOT_FOUND);
      return { kind: 'organization', partnerId: partner.id, organizationId: id };
    }
    if (!input.integrationSourceIds || input.integrationSourceIds.length === 0) return { kind: 'sources', partnerId: partner.id };
    const ids = [...new Set(input.integrationSourceIds.map((id) => id.trim().toLowerCase()))];
    if (!ids.every((id) => GUID.test(id))) throw new NotFoundError(NOT_FOUND);
    const found = await this.#repository.partnerSources(partner.id, ids);
    if (found.length !== ids.length) throw new NotFoundError(NOT_FOUND);
    return { kind: 'sources', partnerId: partner.id, integrationSourceIds: ids };
  }
}

function readPaging(input: ReportPageInput, violations: RuleViolation[]): ReportPaging | undefined {
  const pageSize = input.pageSize ?? DEFAULT_PAGE_SIZE;
  const pageIndex = input.pageIndex ?? 1;
  let ok = true;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    violations.push({ code: Rule.OutOfRange, field: 'pageSize', message: `{pageSize} must be from 1 to ${MAX_PAGE_SIZE}; exports are not paged.` });
    ok = false;
  }
  if (!Number.isInteger(pageIndex) || pageIndex < 0) {
    violations.push({ code: Rule.OutOfRange, field: 'pageIndex', message: '{pageIndex} must be 1 or more (0 is the first page too).' });
    ok = false;
  }
  return ok ? { pageIndex: Math.max(1, pageIndex), pageSize } : undefined;
}

function readFormat(raw: string | undefined, violations: RuleViolation[]): ExportFormat | undefined {
  const format = (raw?.trim() || 'csv').toLowerCase();
  if (format === 'csv' || format === 'excel') return format;
  violations.push({ code: Rule.InvalidValue, field: 'format', message: '{format} must be csv or excel.' });
  return undefined;
}

function fileName(scope: ReportScope, format: ExportFormat, at: Date): string {
  const stamp = at.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
  const what = scope.kind === 'organization' ? `organization-${scope.organizationId}` : scope.integrationSourceIds?.length === 1 ? `source-${scope.integrationSourceIds[0]}` : 'sources';
  return `transactions-${what}-${stamp}.${EXPORT_EXTENSIONS[format]}`;
}
