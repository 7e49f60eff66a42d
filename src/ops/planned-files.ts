import { chmodSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { makeDirectory, readIfExists, writeFileAtomic } from '../platform/atomic-file.js';

/** A file a command means to leave behind: its whole content, or null to remove it. */
export interface PlannedFile {
  readonly path: string;
  readonly content: string | null;
  readonly mode: number;
  /** Secrets: a file whose bytes are right but whose mode is wider gets `mode` back. */
  readonly enforceMode?: boolean;
  /** Mode of directories created on the way (default 0755). */
  readonly dirMode?: number;
}

export type FileStatus = 'created' | 'changed' | 'unchanged' | 'mode fixed' | 'removed' | 'absent';

export interface FileOutcome {
  readonly path: string;
  readonly status: FileStatus;
}

/** What applying `file` would do, without doing it. */
export function outcomeOf(file: PlannedFile): FileStatus {
  const current = readIfExists(file.path);
  if (file.content === null) return current === null ? 'absent' : 'removed';
  if (current === null) return 'created';
  if (current !== file.content) return 'changed';
  if (file.enforceMode && (statSync(file.path).mode & 0o777) !== file.mode) return 'mode fixed';
  return 'unchanged';
}

/**
 * Writes (atomically) each file whose bytes differ and nothing else, so a second run with
 * the same answers leaves every file, and its modification time, as it was.
 */
export function applyFile(file: PlannedFile): FileOutcome {
  const status = outcomeOf(file);
  if (status === 'created' || status === 'changed') {
    makeDirectory(dirname(file.path), file.dirMode ?? 0o755);
    writeFileAtomic(file.path, file.content!, file.mode);
  } else if (status === 'mode fixed') {
    chmodSync(file.path, file.mode);
  } else if (status === 'removed') {
    rmSync(file.path);
  }
  return { path: file.path, status };
}
