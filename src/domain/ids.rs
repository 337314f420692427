//! Ids of an account's leads, webhooks and deliveries: `account_id * 2^31 + n`, n counted
//! per account (store::next_id). An account keeps its ids when it moves between shards,
//! and a queue message that carries a delivery id alone still leads to the account, hence
//! to its shard. 2^53 / 2^31 leaves room for 4,194,304 accounts, each with 2^31 rows.

/// How many ids one account has.
pub const ACCOUNT_SPAN: i64 = 1 << 31;

/// The account an id of [`ACCOUNT_SPAN`] form belongs to; `None` for anything else.
pub fn account_of(id: i64) -> Option<i64> {
    (id >= ACCOUNT_SPAN).then_some(id / ACCOUNT_SPAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_names_its_account() {
        assert_eq!(account_of(ACCOUNT_SPAN + 1), Some(1));
        assert_eq!(account_of(7 * ACCOUNT_SPAN + ACCOUNT_SPAN - 1), Some(7));
        assert_eq!(account_of(5), None);
        assert_eq!(account_of(-3), None);
        // Every id of the largest account stays an exact JavaScript number.
        assert!((1i64 << 22) * ACCOUNT_SPAN - 1 <= (1i64 << 53) - 1);
    }
}
