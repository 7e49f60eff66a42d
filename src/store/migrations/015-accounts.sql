-- Organiser accounts (issue 32): local now, single sign-on later (source 'oidc'). The email is kept
-- normalised (NFC, lower case); a local account's password only as a salted scrypt hash, null until set.
CREATE TABLE accounts (
  account_id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  admin INTEGER NOT NULL CHECK (admin IN (0, 1)),
  disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
  source TEXT NOT NULL CHECK (source IN ('local', 'oidc')),
  password_hash TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;

-- One-time links (set a password): only a SHA-256 of the link's secret; deleted when used.
CREATE TABLE account_links (
  link_hash BLOB PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
  purpose TEXT NOT NULL CHECK (purpose IN ('set_password')),
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
) STRICT;
CREATE INDEX account_links_by_account ON account_links (account_id);

-- Signed-in browsers: only a SHA-256 of the session cookie's secret.
CREATE TABLE account_sessions (
  session_hash BLOB PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (account_id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
) STRICT;
CREATE INDEX account_sessions_by_account ON account_sessions (account_id);

-- The organiser a room belongs to; null for rooms made with an access token (integrations) or the meeting API.
ALTER TABLE rooms ADD COLUMN owner_account_id TEXT REFERENCES accounts (account_id) ON DELETE SET NULL;
CREATE INDEX rooms_by_owner ON rooms (owner_account_id, room_id);
