import { createRequire } from 'node:module';
import type * as Orm from 'drizzle-orm';
import type * as NodePg from 'drizzle-orm/node-postgres';
import type * as PgCore from 'drizzle-orm/pg-core';
import type * as Pglite from 'drizzle-orm/pglite';

/**
 * Drizzle's values, loaded from its CommonJS build. Linking its ESM build (hundreds of modules
 * re-exported with `export *`) made Node 24 grow to about 250 MB of resident memory before the
 * service did anything; the CommonJS build costs about 10 MB (docs/decisions.md, "Memory").
 * Import Drizzle values from here; types still come from 'drizzle-orm' (type imports are erased).
 */
const require = createRequire(import.meta.url);
const orm = require('drizzle-orm') as typeof Orm;
const pgCore = require('drizzle-orm/pg-core') as typeof PgCore;

export const { and, asc, count, desc, eq, getTableColumns, gt, inArray, is, isNull, lt, ne, notExists, or, sql } = orm;
export const {
  PgTable,
  bigint,
  boolean,
  date,
  getTableConfig,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} = pgCore;
export const drizzleNodePostgres = (require('drizzle-orm/node-postgres') as typeof NodePg).drizzle;
export const drizzlePglite = (require('drizzle-orm/pglite') as typeof Pglite).drizzle;
