// Issue 29, point 4: what root writes in another user's directory stays that user's.
import { chownSync, mkdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';
import { writeFileAtomic } from '../../../src/platform/atomic-file.js';
import { makeDirectory } from '../../../src/platform/file-owner.js';
import { privateDatabase } from '../../../src/platform/private-files.js';

const needsRoot = process.getuid?.() === 0 ? false : 'only root can hand files to another user';
const owner = (path: string) => `${statSync(path).uid}:${statSync(path).gid}`;

t.test(
  'directories made on the way take the owner of the one they were made in, a relative path too',
  { skip: needsRoot },
  async (t) => {
    const root = t.testdir({});
    const users = join(root, 'users');
    mkdirSync(users);
    chownSync(users, 12345, 23456);
    makeDirectory(join(users, 'a', 'b', 'c'), 0o700);
    for (const dir of ['a', 'a/b', 'a/b/c']) t.equal(owner(join(users, dir)), '12345:23456', dir);
    t.equal(statSync(join(users, 'a', 'b', 'c')).mode & 0o777, 0o700);
    makeDirectory(relative(process.cwd(), join(users, 'x', 'y')), 0o755);
    t.equal(owner(join(users, 'x', 'y')), '12345:23456', 'given relative to the working directory');
    makeDirectory(join(root, 'mine'), 0o755);
    t.equal(owner(join(root, 'mine')), `0:${statSync(root).gid}`, "root's own directory stays root's");
  },
);

t.test(
  "writeFileAtomic keeps the replaced file's owner, else takes the directory's; an explicit owner wins",
  { skip: needsRoot },
  async (t) => {
    const root = t.testdir({ dir: { kept: 'old' } });
    const dir = join(root, 'dir');
    chownSync(dir, 12345, 12345);
    chownSync(join(dir, 'kept'), 34567, 34567);
    writeFileAtomic(join(dir, 'kept'), 'new');
    t.equal(owner(join(dir, 'kept')), '34567:34567', 'the file it replaces');
    writeFileAtomic(join(dir, 'new'), 'new');
    t.equal(owner(join(dir, 'new')), '12345:12345', "a new file: the directory's");
    writeFileAtomic(join(dir, 'given'), 'x', 0o600, { uid: 45678, gid: 45678 });
    t.equal(owner(join(dir, 'given')), '45678:45678');
  },
);

t.test(
  "a database file root creates is the directory owner's (SQLite gives its -wal and -shm the same)",
  { skip: needsRoot },
  async (t) => {
    const root = t.testdir({});
    chownSync(root, 12345, 12345);
    const file = join(root, 'meet.sqlite');
    privateDatabase(file);
    t.equal(owner(file), '12345:12345');
  },
);
