-- Name searches look first among the names that begin with the query, in name order, when its
-- words are common (src/services/charity-name-plan.ts, searchBeginningFirst): a range of this
-- index, read only as far as needed. search_name is COLLATE "C", so a prefix is a range.
CREATE INDEX charities_name_beginning ON charities (registry, search_name);
