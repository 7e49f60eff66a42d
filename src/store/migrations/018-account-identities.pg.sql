-- PostgreSQL form of 018.
CREATE TABLE account_identities (
  issuer text NOT NULL,
  subject text NOT NULL,
  account_id text NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
  created_at text NOT NULL,
  PRIMARY KEY (issuer, subject),
  UNIQUE (account_id, issuer)
);
