-- What a name search reads of each charity, in a table of its own (docs/decisions.md, "Charity
-- directory", "Name search reads a narrow table"): the name-word index and the name btree find
-- candidates here, a table 40 % the size of charities, so the pages they visit are more often in
-- PostgreSQL's buffers. Kept by the importer, in the statement that writes each charity.
CREATE TABLE charity_names (
  id uuid PRIMARY KEY,
  registry text NOT NULL,
  registry_number text NOT NULL,
  search_name text COLLATE "C" NOT NULL
);

INSERT INTO charity_names (id, registry, registry_number, search_name)
SELECT id, registry, registry_number, search_name FROM charities;

CREATE INDEX charity_names_words ON charity_names USING gin (string_to_array(search_name, ' '));
-- With the id and number: a range of names beginning with the query is read from the index alone
-- where the importer's vacuum has marked the table's pages all-visible.
CREATE INDEX charity_names_beginning ON charity_names (registry, search_name) INCLUDE (id, registry_number);

DROP INDEX charities_name_words;
DROP INDEX charities_name_beginning;

ANALYZE charity_names;
