
/** The charity directory; see migrations/0008_charities.sql. */
export const charities = pgTable('charities', {
  id: uuid('id').primaryKey(),
  registry: text('registry', { enum: ['IRS', 'CRA'] }).notNull(),
  registryNumber: text('registry_number').notNull(),
  taxIdRoot: text('tax_id_root').notNull(),
  name: text('name').notNull(),
  searchName: text('search_name').notNull(),
  ein: text('ein').notNull(),
  address1: text('address1'),
  address2: text('address2'),
  city: text('city'),
  cityKey: text('city_key'),
  state: text('state'),
  zip: text('zip'),
  country: text('country'),
  nteeCode: text('ntee_code'),
  eligible: boolean('eligible').notNull(),
  groupExemption: text('group_exemption'),
  groupRole: text('group_role', { enum: ['central', 'member'] }),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
import { boolean, pgTable, text, timestamp, uuid } from '../drizzle.ts';

/** What a name search reads of each charity (migrations/0017_charity_names.sql); kept by the importer. */
export const charityNames = pgTable('charity_names', {
  id: uuid('id').primaryKey(),
  registry: text('registry', { enum: ['IRS', 'CRA'] }).notNull(),
  registryNumber: text('registry_number').notNull(),
  searchName: text('search_name').notNull(),
});

/** Every word of every charity name (prefix and typo resolution). */
export const charityWords = pgTable('charity_words', {
  word: text('word').primaryKey(),
});

/** The central organization of each IRS group exemption. */
export const charityGroups = pgTable('charity_groups', {
  groupExemption: text('group_exemption').primaryKey(),
  centralId: uuid('central_id').notNull(),
  centralName: text('central_name').notNull(),
});
