//! Passkeys (WebAuthn Level 3) for the account area's sign-in (account-area.md 1).

pub mod cbor;
