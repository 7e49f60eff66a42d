/** A queued write with how to answer its caller: shared by the synchronous and asynchronous group commits. */
export interface GroupEntry<Queued> {
  readonly queued: Queued;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

interface Callbacks {
  committed?(value: never): void;
  answer?(value: never): unknown;
  failed?(error: unknown): void;
}

/**
 * The group's transaction committed: every `committed` runs in queue order, at once (memory
 * follows the store before anyone can read it); the promises resolve then, or once `durable`
 * resolved when the commit's sync to disk is still under way (a failed sync rejects them).
 * Returns how many writes the group held.
 */
export function answerCommitted<Queued extends Callbacks>(
  group: GroupEntry<Queued>[],
  values: unknown[],
  durable: Promise<void> | null = null,
): number {
  const answers: (() => void)[] = [];
  group.forEach((entry, i) => {
    try {
      (entry.queued.committed as ((value: unknown) => void) | undefined)?.(values[i]);
      const queued = entry.queued as { answer?(value: unknown): unknown };
      answers.push(
        queued.answer === undefined
          ? () => entry.resolve(values[i])
          : () => {
              try {
                entry.resolve(queued.answer!(values[i]));
              } catch (error) {
                entry.reject(error);
              }
            },
      );
    } catch (error) {
      // A bug in one callback must not leave the rest of the group unanswered.
      entry.reject(error);
    }
  });
  if (durable === null) for (const answer of answers) answer();
  else
    durable.then(
      () => answers.forEach((answer) => answer()),
      (error: unknown) => group.forEach((entry) => entry.reject(error)),
    );
  return group.length;
}

/** The group's transaction failed: nothing of it is on disk; every `failed` runs and every promise rejects. */
export function answerFailed<Queued extends Callbacks>(group: GroupEntry<Queued>[], error: unknown): number {
  for (const entry of group) {
    try {
      entry.queued.failed?.(error);
    } catch {
      // A bug in one callback must not leave the rest of the group unanswered: each still gets the store's error.
    }
    entry.reject(error);
  }
  return 0;
}
