// A pool member over a fresh one-worker heap, for tests of what lives in
// the heap; closed (and its storage uninstalled) when the test is done.

import { Scheduler } from "../../../scheduler/scheduler.ts";
import { SharedHeap } from "../../../scheduler/shared/heap.ts";
import { PoolMember } from "../../../scheduler/shared/pool_member.ts";
import { createWakeRings } from "../../../scheduler/shared/wake_ring.ts";
import { SharedStorage } from "../../../runtime/pool/shared_storage.ts";

/**
 * Calls `fn` with a member of a new heap, then closes the member.
 *
 * @param fn The test.
 * @returns When `fn` has finished.
 */
export async function withMember(
  fn: (member: PoolMember) => void | Promise<void>,
): Promise<void> {
  const heap = SharedHeap.create();
  createWakeRings(heap, 1);
  const member = new PoolMember(
    heap,
    0,
    new Scheduler({ threadContext: false }),
  );
  try {
    await fn(member);
  } finally {
    member.close();
  }
}

/**
 * Calls `fn` with a member of a new heap whose large arrays come from the
 * heap's storage.
 *
 * @param fn The test.
 * @returns When `fn` has finished.
 */
export function withStorage(
  fn: (member: PoolMember, storage: SharedStorage) => void | Promise<void>,
): Promise<void> {
  return withMember(async (member) => {
    const storage = SharedStorage.install(member);
    try {
      await fn(member, storage);
    } finally {
      storage.uninstall();
    }
  });
}
