-- Single sign-on (issue 32): the provider identity (issuer and subject of its ID tokens) an account
-- signs in with. One account per identity, one identity per account and issuer; gone with the account.
CREATE TABLE account_identities (
  issuer TEXT NOT NULL,
  subject TEXT NOT NULL,
  account_id TEXT NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  PRIMARY KEY (issuer, subject),
  UNIQUE (account_id, issuer)
) STRICT;
