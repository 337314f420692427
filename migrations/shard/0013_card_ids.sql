-- Card ids come from the account's shard, as its leads' do (regions.md 6: a create writes
-- nothing to the directory before it answers): account_id * 2^31 + n, n counted in
-- accounts.last_id. Ids made by the directory before this are below 2^31, so the two
-- never meet, and a move carries both.
CREATE TRIGGER cards_last_id AFTER INSERT ON cards
BEGIN UPDATE accounts SET last_id = MAX(last_id, NEW.id - NEW.account_id * 2147483648)
      WHERE id = NEW.account_id; END;
