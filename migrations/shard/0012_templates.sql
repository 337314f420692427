-- Company templates (teams.md 1). `fields` holds the template's values as the card
-- columns they write (JSON, keys sorted), `locked` the names of those it locks (JSON).
-- `rev` counts the changes of layout, values and locks; a card that uses the template
-- (`cards.template_id` = 'tpl_' || id) records in `template_rev` the rev it was last
-- brought in line with, in the batch of that card write, so the cards still to bring in
-- line are found by index however often the runtime restarts.
CREATE TABLE templates (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    layout TEXT NOT NULL,
    fields TEXT NOT NULL DEFAULT '{}',
    locked TEXT NOT NULL DEFAULT '[]',
    is_default INTEGER NOT NULL DEFAULT 0,
    rev INTEGER NOT NULL DEFAULT 1,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX templates_account_name ON templates (account_id, name, id);

-- Template ids are the account's own range, like webhooks' (0008).
CREATE TRIGGER templates_last_id AFTER INSERT ON templates
BEGIN UPDATE accounts SET last_id = MAX(last_id, NEW.id - NEW.account_id * 2147483648)
  WHERE id = NEW.account_id; END;

ALTER TABLE cards ADD COLUMN template_rev INTEGER;
CREATE INDEX cards_account_template ON cards (account_id, template_id, template_rev)
    WHERE template_id LIKE 'tpl_%';
