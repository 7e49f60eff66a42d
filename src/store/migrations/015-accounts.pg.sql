-- PostgreSQL form of 015.
CREATE TABLE accounts (
  account_id text PRIMARY KEY,
  email text NOT NULL UNIQUE,
  name text NOT NULL,
  admin boolean NOT NULL,
  disabled boolean NOT NULL DEFAULT false,
  source text NOT NULL CHECK (source IN ('local', 'oidc')),
  password_hash text,
  created_at text NOT NULL,
  updated_at text NOT NULL
);

CREATE TABLE account_links (
  link_hash bytea PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
  purpose text NOT NULL CHECK (purpose IN ('set_password')),
  created_at text NOT NULL,
  expires_at text NOT NULL
);
CREATE INDEX account_links_by_account ON account_links (account_id);

CREATE TABLE account_sessions (
  session_hash bytea PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
  created_at text NOT NULL,
  expires_at text NOT NULL
);
CREATE INDEX account_sessions_by_account ON account_sessions (account_id);

ALTER TABLE rooms ADD COLUMN owner_account_id text REFERENCES accounts (account_id) ON DELETE SET NULL;
CREATE INDEX rooms_by_owner ON rooms (owner_account_id, room_id);
