-- The US (IRS EO BMF) and Canadian (CRA) charity directory behind GET /api/CharitySearch, loaded
-- by `payments charities import`. Other features reference a charity by id (CharityId).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE charities (
  -- CharityId: UUID v5 of '<registry>:<registry_number>', so it survives re-imports.
  id uuid PRIMARY KEY,
  registry text NOT NULL CHECK (registry IN ('IRS', 'CRA')),
  -- IRS: the 9-digit EIN; CRA: the 15-character business number #########RR####.
  registry_number text NOT NULL,
  -- The 9 digits every written form of the EIN or BN shares (EIN lookups).
  tax_id_root text NOT NULL,
  name text NOT NULL,
  -- Lower case, no accents, punctuation as spaces: what name searches match and NpoName sorts by.
  search_name text COLLATE "C" NOT NULL,
  -- As shown: XX-XXXXXXX (US) or the BN (Canada).
  ein text NOT NULL,
  address1 text,
  address2 text,
  city text,
  city_key text COLLATE "C",
  state text,
  zip text,
  country text,
  ntee_code text,
  -- Donations are deductible and the organization is in good standing.
  eligible boolean NOT NULL,
  -- IRS group exemption number, and whether this row is the group's central organization.
  group_exemption text,
  group_role text CHECK (group_role IN ('central', 'member')),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Name search: the words of search_name (query words are first resolved to whole words through
-- charity_words, so the index only ever answers "has one of these words").
CREATE INDEX charities_name_words ON charities USING gin (string_to_array(search_name, ' '));
CREATE INDEX charities_tax_id ON charities (tax_id_root);
-- A State search pages through this in NpoName order (a state can hold 200,000 charities); a
-- city holds few enough to sort.
CREATE INDEX charities_state ON charities (registry, state, search_name);
CREATE INDEX charities_city ON charities (city_key);
CREATE INDEX charities_group_central ON charities (group_exemption) WHERE group_role = 'central';

-- Every word of every name: the vocabulary that word prefixes and misspelt words (trigram
-- similarity) are resolved against before the directory itself is searched.
CREATE TABLE charity_words (
  word text COLLATE "C" PRIMARY KEY
);
CREATE INDEX charity_words_trigrams ON charity_words USING gin (word gin_trgm_ops);

-- The central organization of each IRS group exemption (ParentOrgName of its subordinates),
-- refreshed after every import.
CREATE TABLE charity_groups (
  group_exemption text PRIMARY KEY,
  central_id uuid NOT NULL,
  central_name text NOT NULL
);
