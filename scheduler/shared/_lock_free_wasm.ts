// The lock-free fast paths of shared channels as one small WebAssembly
// module over the heap's memory: a buffered channel's ring operations
// (_ring.ts's pushFast and takeFast) and an unbuffered channel's hand-off
// to a receiver in its rendezvous slot (_rendezvous.ts's handOff). It is
// compiled once per process and instantiated once per heap and worker.
//
// Why WebAssembly: V8 runs every `Atomics` call out of line, 15–30 ns each
// here, of which the call is about half; a WebAssembly atomic instruction
// is inline, and costs what the processor's locked instruction costs (a
// compare-and-swap or an exchange, about 20 ns here back to back; an atomic
// load is a plain load). A call from optimized JavaScript into a small
// WebAssembly function costs about as much as a plain call. A fast
// operation was two `Atomics` calls and some twenty typed array accesses;
// here it is one call. WebAssembly also sees the memory's current size, so
// a ring, which may lie in memory another worker grew, needs no covering
// view (heap.ts's `i32To`).
//
// The module is encoded here, at load, from the text format's instructions
// (`assemble`): kernels/cpu/wasm/module_builder.ts has a fuller encoder,
// but scheduler/ does not import kernels/ (docs/architecture.md §1), and
// this needs a dozen instructions and two LEB128 writers.
//
// Each function does exactly what _ring.ts's or _rendezvous.ts's comments
// say of its fast path (same words, same order of atomic operations);
// JavaScript's Atomics on the same words (the slow paths, under the heap's
// lock) and these are the same sequentially consistent operations on the
// same shared memory.
//
// Invariants:
//   The module only reads and writes the words of the record and areas it
//   is given; it allocates nothing, and holds a side only between its lock
//   and unlock in one call.

import {
  C_AVAIL,
  C_CAP,
  C_FREE,
  C_HEAD,
  C_RING,
  C_RING_CAP,
  C_SLOT,
  C_TAIL,
  DONE,
  W_STATE,
  W_VALUE,
} from "./_records.ts";
import { V_BLOB, V_INLINE, VALUE_BYTES } from "./_values.ts";
import type { SharedHeap } from "./heap.ts";

/**
 * The lock-free fast paths on one heap, by byte offsets: for the channel
 * record at byte `c` and the value area at byte `from` or `to`.
 */
export interface LockFreeWasm {
  /** pushFast: FAST_DONE, FAST_BLOCKED or FAST_NO. */
  readonly push: (c: number, from: number) => number;
  /** takeFast: FAST_DONE, FAST_BLOCKED or FAST_NO. */
  readonly take: (c: number, to: number) => number;
  /** handOff: 1 if the value went to a receiver, else 0. */
  readonly handOff: (c: number, from: number) => number;
}

/** A fast operation's outcomes (_ring.ts re-exports them). */
export const FAST_DONE = 0;
/** The ring is full (push) or empty (take), and nobody waits. */
export const FAST_BLOCKED = 1;
/** The slow path must decide: waiters, closed, a ring to grow, contention. */
export const FAST_NO = 2;
/** A side word's bits (_ring.ts): held by a fast operation or the slow path. */
export const LOCKED = 1;
/** A side word's bits: a fast operation must take the slow path. */
export const SLOW = 2;
/** Positions count modulo 2^29: this is the mask. */
export const POSITIONS = (1 << 29) - 1;
// How many times a fast operation looks at a side another worker holds
// before it takes the slow path (which waits for that side anyway).
const SIDE_TRIES = 64;

// The code, in WebAssembly's text format, flat (one instruction after
// another, branch targets as depths), which `assemble` below encodes.
// Both functions take the record's and the value area's byte offsets.
// `mine` is this side's word (C_TAIL to push, C_HEAD to take), `known` its
// count (C_FREE, C_AVAIL), `other` the other side's word.
function fastOperation(push: boolean): string {
  const [mine, known, other] = push
    ? [C_TAIL, C_FREE, C_HEAD]
    : [C_HEAD, C_AVAIL, C_TAIL];
  // What this side knows of once it has read the other side's word: free
  // slots, min(capacity, slots) - ((tail - head) & POSITIONS), or values,
  // (tail - head) & POSITIONS.
  const count = push
    ? `local.get cap local.get slots local.get cap local.get slots i32.lt_s
       select
       local.get pos
       local.get rec i32.atomic.load ${other * 4} i32.const 2 i32.shr_u
       i32.sub i32.const ${POSITIONS} i32.and
       i32.sub`
    : `local.get rec i32.atomic.load ${other * 4} i32.const 2 i32.shr_u
       local.get pos i32.sub i32.const ${POSITIONS} i32.and`;
  // A full ring: FAST_NO if it may still grow; an empty one: FAST_BLOCKED.
  const blocked = push
    ? `i32.const ${FAST_NO} i32.const ${FAST_BLOCKED}
       local.get slots local.get cap i32.lt_s select`
    : `i32.const ${FAST_BLOCKED}`;
  const copy = push
    ? copyText("area", 0, "slot", 0)
    : copyText("slot", 0, "area", 0);
  return `
    block                                       ;; no
      ;; Lock this side, as with a compare-and-swap whose expected word is
      ;; a plain read (a failed one answers the word to go on with).
      local.get rec i32.load ${mine * 4} local.set word
      i32.const ${SIDE_TRIES} local.set tries
      block                                     ;; locked
        loop
          local.get word i32.const ${SLOW} i32.and br_if 2     ;; no
          local.get word i32.const ${LOCKED} i32.and i32.eqz
          if
            local.get rec
            local.get word local.get word i32.const ${LOCKED} i32.or
            i32.atomic.rmw.cmpxchg ${mine * 4}
            local.tee seen local.get word i32.eq br_if 2       ;; locked
            local.get seen local.set word
          else
            local.get rec i32.atomic.load ${mine * 4} local.set word
          end
          local.get tries i32.const 1 i32.sub local.tee tries
          br_if 0
        end
        br 1                                    ;; no: out of tries
      end
      local.get word i32.const 2 i32.shr_u local.set pos
      local.get rec i32.load ${C_RING_CAP * 4} local.set slots
      local.get rec i32.load ${C_CAP * 4} local.set cap
      local.get rec i32.load ${known * 4} local.tee known i32.eqz
      if
        ${count} local.tee known i32.eqz
        if
          local.get rec local.get word i32.atomic.store ${mine * 4}
          ${blocked} return
        end
      end
      local.get rec i32.load ${C_RING * 4}
      local.get pos local.get slots i32.const 1 i32.sub i32.and
      i32.const ${Math.log2(VALUE_BYTES)} i32.shl i32.add local.set slot
      ${copy}
      local.get rec local.get known i32.const 1 i32.sub
      i32.store ${known * 4}
      ;; Unlock, publishing the move.
      local.get rec
      local.get pos i32.const 1 i32.add i32.const ${POSITIONS} i32.and
      i32.const 2 i32.shl
      i32.atomic.store ${mine * 4}
      i32.const ${FAST_DONE} return
    end
    i32.const ${FAST_NO}`;
}

// Moves a value area's V_BLOB and inline words (V_SPARE is not moved), as
// copyValue does, from local `from` plus byte offset `fromAt` to local `to`
// plus `toAt`.
function copyText(
  from: string,
  fromAt: number,
  to: string,
  toAt: number,
): string {
  let copy = `local.get ${to} local.get ${from}
    i32.load ${fromAt + V_BLOB * 4} i32.store ${toAt + V_BLOB * 4}`;
  for (let at = V_INLINE * 4; at < VALUE_BYTES; at += 8) {
    copy += ` local.get ${to} local.get ${from}
      i64.load ${fromAt + at} i64.store ${toAt + at}`;
  }
  return copy;
}

// The hand-off to a receiver waiting in an unbuffered channel's rendezvous
// slot: a plain read of the slot guesses, a compare-and-swap of the waiter
// out of it decides; then the value into the waiter, and its state, DONE,
// stored last. 1 if it went, else 0.
function handOffText(): string {
  return `
    local.get rec i32.load ${C_SLOT * 4} local.tee word
    i32.const 0 i32.le_s
    if i32.const 0 return end
    local.get rec local.get word i32.const 0
    i32.atomic.rmw.cmpxchg ${C_SLOT * 4}
    local.get word i32.ne
    if i32.const 0 return end
    ${copyText("area", 0, "word", W_VALUE * 4)}
    local.get word i32.const ${DONE} i32.atomic.store ${W_STATE * 4}
    i32.const 1`;
}

// The parameters and locals of every function, all i32.
const LOCALS = [
  "rec", // the record's byte offset (a parameter)
  "area", // the value area's byte offset (a parameter)
  "word", // this side's word, once locked (a waiter's byte offset in handOff)
  "seen", // a compare-and-swap's answer
  "tries",
  "pos", // this side's position
  "known", // free slots (push) or values (take) this side knows of
  "slots", // the ring's slots
  "cap", // the channel's capacity
  "slot", // the slot's byte offset
];
const PARAMS = 2;

// The instructions `assemble` knows: their bytes, and what follows them.
// A memory instruction's immediate is its byte offset; its alignment is
// the natural one.
type Immediate = "local" | "depth" | "int" | "memory" | "none";
const INSTRUCTIONS: Record<string, [number[], Immediate, number?]> = {
  "block": [[0x02, 0x40], "none"],
  "loop": [[0x03, 0x40], "none"],
  "if": [[0x04, 0x40], "none"],
  "else": [[0x05], "none"],
  "end": [[0x0b], "none"],
  "br": [[0x0c], "depth"],
  "br_if": [[0x0d], "depth"],
  "return": [[0x0f], "none"],
  "select": [[0x1b], "none"],
  "local.get": [[0x20], "local"],
  "local.set": [[0x21], "local"],
  "local.tee": [[0x22], "local"],
  "i32.load": [[0x28], "memory", 2],
  "i64.load": [[0x29], "memory", 3],
  "i32.store": [[0x36], "memory", 2],
  "i64.store": [[0x37], "memory", 3],
  "i32.const": [[0x41], "int"],
  "i32.eqz": [[0x45], "none"],
  "i32.eq": [[0x46], "none"],
  "i32.ne": [[0x47], "none"],
  "i32.lt_s": [[0x48], "none"],
  "i32.le_s": [[0x4c], "none"],
  "i32.add": [[0x6a], "none"],
  "i32.sub": [[0x6b], "none"],
  "i32.and": [[0x71], "none"],
  "i32.or": [[0x72], "none"],
  "i32.shl": [[0x74], "none"],
  "i32.shr_u": [[0x76], "none"],
  "i32.atomic.load": [[0xfe, 0x10], "memory", 2],
  "i32.atomic.store": [[0xfe, 0x17], "memory", 2],
  "i32.atomic.rmw.cmpxchg": [[0xfe, 0x48], "memory", 2],
};

// Encodes flat text-format code (`;;` comments) as a function body's
// instructions.
function assemble(text: string): number[] {
  const words = text.replace(/;;[^\n]*/g, "").split(/\s+/).filter((w) => w);
  const out: number[] = [];
  for (let k = 0; k < words.length; k++) {
    const found = INSTRUCTIONS[words[k]];
    if (found === undefined) throw new Error(`ring code: no ${words[k]}`);
    const [bytes, immediate, align] = found;
    out.push(...bytes);
    if (immediate === "none") continue;
    const operand = words[++k];
    if (immediate === "local") out.push(LOCALS.indexOf(operand));
    else if (immediate === "int") out.push(...sleb(Number(operand)));
    else if (immediate === "depth") out.push(...leb(Number(operand)));
    else out.push(align!, ...leb(Number(operand)));
  }
  return out;
}

// Unsigned LEB128: seven bits a byte, low first, the top bit on all but
// the last.
function leb(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

// Signed LEB128, for i32.const.
function sleb(value: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    const done = (value === 0 && (byte & 0x40) === 0) ||
      (value === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

function section(id: number, body: number[]): number[] {
  return [id, ...leb(body.length), ...body];
}

function vector(items: number[][]): number[] {
  return [...leb(items.length), ...items.flat()];
}

function name(text: string): number[] {
  return [...leb(text.length), ...new TextEncoder().encode(text)];
}

// The module: one type, (i32, i32) -> i32; the heap's memory imported as
// `env.memory` (shared, at least 1 page and at most 65536, which any
// heap's memory satisfies); the functions, exported by name.
function moduleBytes(): Uint8Array<ArrayBuffer> {
  const I32 = 0x7f;
  const type = [0x60, ...vector([[I32], [I32]]), ...vector([[I32]])];
  const memory = [...name("env"), ...name("memory"), 0x02, 0x03, 1];
  memory.push(...leb(65536));
  const functions: [string, string][] = [
    ["push", fastOperation(true)],
    ["take", fastOperation(false)],
    ["handOff", handOffText()],
  ];
  const body = (text: string) => {
    const code = [1, ...leb(LOCALS.length - PARAMS), I32];
    code.push(...assemble(text), 0x0b);
    return [...leb(code.length), ...code];
  };
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, vector([type])),
    ...section(2, vector([memory])),
    ...section(3, vector(functions.map(() => [0]))),
    ...section(7, vector(functions.map(([n], i) => [...name(n), 0, i]))),
    ...section(10, vector(functions.map(([, text]) => body(text)))),
  ]);
}

let compiled: WebAssembly.Module | undefined;
const instances = new WeakMap<WebAssembly.Memory, LockFreeWasm>();

/**
 * The lock-free fast paths over `heap`'s memory (instantiated once per
 * memory on this worker).
 *
 * @param heap The heap.
 * @returns Its fast paths.
 *
 * @example Usage
 * ```ts
 * import { SharedHeap } from "./heap.ts";
 * import { C_CAP } from "./_records.ts";
 * import { createRing, FAST_BLOCKED, FAST_DONE } from "./_ring.ts";
 * import { lockFreeWasm } from "./_lock_free_wasm.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const heap = SharedHeap.create();
 * heap.lock();
 * const c = heap.allocControl(256) >> 2;
 * const area = heap.allocControl(32) >> 2;
 * heap.i32[c + C_CAP] = 1;
 * createRing(heap, c, 1);
 * heap.unlock();
 * const { push, take } = lockFreeWasm(heap);
 * assertEquals(push(c << 2, area << 2), FAST_DONE);
 * assertEquals(push(c << 2, area << 2), FAST_BLOCKED); // full
 * assertEquals(take(c << 2, area << 2), FAST_DONE);
 * ```
 */
export function lockFreeWasm(heap: SharedHeap): LockFreeWasm {
  let found = instances.get(heap.memory);
  if (found === undefined) {
    compiled ??= new WebAssembly.Module(moduleBytes());
    const instance = new WebAssembly.Instance(compiled, {
      env: { memory: heap.memory },
    });
    const exports = instance.exports as unknown as LockFreeWasm;
    found = {
      push: exports.push,
      take: exports.take,
      handOff: exports.handOff,
    };
    instances.set(heap.memory, found);
  }
  return found;
}
