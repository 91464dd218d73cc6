import { assert, assertEquals } from "@std/assert";
import { Global, SharedHeap } from "../../../scheduler/shared/heap.ts";
import { othersActive, Spinner } from "../../../scheduler/shared/_spinner.ts";

// The run's activity as the spinner reads it, set by hand; and a word that
// nobody changes, so that every poll of it runs out.
function setup(active: number): { heap: SharedHeap; word: Int32Array } {
  const heap = SharedHeap.create();
  heap.i32[Global.Active] = active;
  return { heap, word: new Int32Array(new SharedArrayBuffer(4)) };
}

Deno.test("othersActive() leaves out the poller's own share of the activity", () => {
  const { heap } = setup(1);
  assert(!othersActive(heap.i32)); // a polling thread alone
  assert(othersActive(heap.i32, 0)); // an idle worker: someone else runs
  heap.i32[Global.Active] = 0;
  assert(!othersActive(heap.i32, 0));
});

Deno.test("Spinner sees an answer that is there already, whoever is active", () => {
  const { heap, word } = setup(1);
  const spinner = new Spinner(heap.i32);
  word[0] = 5;
  assert(spinner.whileEquals(word, 0, 0));
  let calls = 0;
  assert(spinner.until(() => ++calls === 3));
  assertEquals(calls, 3);
  assert(!spinner.waiting);
});

Deno.test("Spinner does not poll for a peer when nobody else is active, and learns nothing from it", () => {
  const { heap, word } = setup(1);
  const spinner = new Spinner(heap.i32);
  const before = spinner.micros;
  assert(!spinner.whileEquals(word, 0, 0));
  assert(!spinner.until(() => false));
  assert(!spinner.waiting);
  assertEquals(spinner.micros, before);
});

Deno.test("Spinner halves its budget down to its floor while answers never come", () => {
  const { heap, word } = setup(2);
  const spinner = new Spinner(heap.i32);
  // Each poll runs out (or the poller was descheduled): the budget halves.
  for (let i = 0; i < 12; i++) assert(!spinner.whileEquals(word, 0, 0));
  assertEquals(spinner.micros, 2);
});

Deno.test("Spinner.answered() ends the wait a poll ran out on; the budget stays within its bounds", () => {
  const { heap, word } = setup(2);
  const spinner = new Spinner(heap.i32);
  for (let i = 0; i < 5; i++) {
    assert(!spinner.whileEquals(word, 0, 0));
    // The budget ran out (rather than the poller being descheduled): the
    // wait is on until answered.
    if (!spinner.waiting) continue;
    spinner.answered();
    assert(!spinner.waiting);
    assert(spinner.micros >= 2 && spinner.micros <= 50);
  }
});

Deno.test("Spinner stops polling once the peer it polls for stops being active", () => {
  const { heap } = setup(2);
  const spinner = new Spinner(heap.i32);
  let polls = 0;
  const gone = () => {
    if (++polls === 300) heap.i32[Global.Active] = 1; // the peer parked
    return false;
  };
  assert(!spinner.until(gone));
  assert(!spinner.waiting); // not the budget's doing: nothing to learn
});

Deno.test("Spinner's paced polling sees an answer, and runs out like plain polling", () => {
  const { heap } = setup(2);
  const spinner = new Spinner(heap.i32);
  let calls = 0;
  assert(spinner.until(() => ++calls === 5, true));
  assertEquals(calls, 5);
  assert(!spinner.waiting);
  const before = spinner.micros;
  assert(!spinner.until(() => false, true)); // nobody answers: runs out
  assert(spinner.waiting);
  assert(spinner.micros < before);
  heap.i32[Global.Active] = 1; // the poller alone: it does not poll on
  spinner.answered();
  assert(!spinner.until(() => false, true));
  assert(!spinner.waiting);
});
