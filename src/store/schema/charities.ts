import { boolean, pgTable, text, uuid } from 'drizzle-orm/pg-core';

/** The charity directory; see migrations/0008_charities.sql. */
export const charities = pgTable('charities', {
  id: uuid('id').primaryKey(),
  registry: text('registry', { enum: ['IRS', 'CRA'] }).notNull(),
  registryNumber: text('registry_number').notNull(),
  name: text('name').notNull(),
  ein: text('ein').notNull(),
  address1: text('address1'),
  address2: text('address2'),
  city: text('city'),
  state: text('state'),
  zip: text('zip'),
  country: text('country'),
  nteeCode: text('ntee_code'),
  eligible: boolean('eligible').notNull(),
  groupExemption: text('group_exemption'),
  parentOrgName: text('parent_org_name'),
});
