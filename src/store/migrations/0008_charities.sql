-- The US (IRS EO BMF) and Canadian (CRA) charity directory. Search columns and indexes are the
-- charity directory feature's; this is the table other features reference (CharityId).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE charities (
  id uuid PRIMARY KEY,
  registry text NOT NULL CHECK (registry IN ('IRS', 'CRA')),
  registry_number text NOT NULL,
  name text NOT NULL,
  ein text NOT NULL,
  address1 text,
  address2 text,
  city text,
  state text,
  zip text,
  country text,
  ntee_code text,
  eligible boolean NOT NULL,
  group_exemption text,
  parent_org_name text,
  UNIQUE (registry, registry_number)
);
