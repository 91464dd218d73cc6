/**
 * `host:port` addresses of workers: parsing with errors that name the bad
 * entry, formatting (IPv6 in brackets), and the order workers are listed in.
 *
 * Accepted hosts are IPv4 dotted quads (`10.0.0.7`), bracketed IPv6
 * (`[fd00::7]`, no zone id) and DNS names (`rill-worker-0.rill`, RFC 1123
 * labels). Ports run from 1 to 65535: a worker's address is one a client
 * dials, so port 0 ("pick one") has no meaning here.
 *
 * @module
 */

import { ProgramError } from "../core/errors.ts";

/** A parsed address. */
export interface HostPort {
  /** The host without brackets: `10.0.0.7`, `fd00::7`, `worker-0.rill`. */
  host: string;
  /** The port, 1–65535. */
  port: number;
}

/**
 * A worker address that does not parse. The message names where the entry
 * came from, the entry and what is wrong with it, on one line.
 *
 * @example Usage
 * ```ts
 * import { HostPortError, parseHostPort } from "./host_port.ts";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * const e = assertThrows(
 *   () => parseHostPort("10.0.0.7:0", { source: "--worker-addrs" }),
 *   HostPortError,
 * );
 * assertEquals(e.entry, "10.0.0.7:0");
 * assertEquals(e.source, "--worker-addrs");
 * ```
 */
export class HostPortError extends ProgramError {
  /** The entry as given. */
  readonly entry: string;
  /** What is wrong with it. */
  readonly reason: string;
  /** Where it came from (a flag, an environment variable, an option). */
  readonly source: string;

  /**
   * Makes the error `source: "entry": reason`.
   *
   * @param entry The entry as given.
   * @param reason What is wrong with it.
   * @param source Where it came from.
   */
  constructor(entry: string, reason: string, source: string) {
    super(`${source}: "${entry}": ${reason}`);
    this.name = "HostPortError";
    this.entry = entry;
    this.reason = reason;
    this.source = source;
  }
}

/** Options for {@linkcode parseHostPort}. */
export interface ParseHostPortOptions {
  /**
   * Where the text came from, for the error message.
   *
   * @default {"address"}
   */
  source?: string;
}

/**
 * Parses one `host:port`.
 *
 * @param text The address; surrounding white space is ignored.
 * @param options Where the text came from.
 * @returns The host (without brackets) and the port.
 * @throws {HostPortError} If the host or the port is not valid.
 *
 * @example Usage
 * ```ts
 * import { parseHostPort } from "./host_port.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(parseHostPort("10.0.0.7:7070"), { host: "10.0.0.7", port: 7070 });
 * assertEquals(parseHostPort("[fd00::7]:7070"), { host: "fd00::7", port: 7070 });
 * assertEquals(parseHostPort("Worker-0.rill:80"), { host: "worker-0.rill", port: 80 });
 * ```
 */
export function parseHostPort(
  text: string,
  options: ParseHostPortOptions = {},
): HostPort {
  const source = options.source ?? "address";
  const entry = text.trim();
  function fail(reason: string): never {
    throw new HostPortError(entry, reason, source);
  }
  if (entry === "") fail("empty address");
  if (entry.includes("://")) fail("give host:port, not a URL");
  let host: string;
  let portText: string;
  if (entry.startsWith("[")) {
    const close = entry.indexOf("]");
    if (close < 0) fail('"[" without a closing "]"');
    if (entry[close + 1] !== ":") fail("missing :port after the IPv6 address");
    host = entry.slice(1, close);
    portText = entry.slice(close + 2);
    host = ipv6HostOf(host) ?? fail(`"${host}" is not an IPv6 address`);
  } else {
    const colon = entry.lastIndexOf(":");
    if (colon < 0) fail("missing :port");
    host = entry.slice(0, colon);
    portText = entry.slice(colon + 1);
    if (host.includes(":")) {
      fail(
        /^[0-9a-fA-F:.]+$/.test(host)
          ? `an IPv6 address needs brackets: [${host}]:${portText}`
          : `"${host}" is not a host (too many ':')`,
      );
    }
    host = host.toLowerCase();
    const problem = hostProblem(host);
    if (problem !== undefined) fail(problem);
  }
  return { host, port: portOf(portText) ?? fail(portProblem(portText)) };
}

/**
 * Formats an address as `host:port`, bracketing an IPv6 host.
 *
 * @param host A host without brackets.
 * @param port The port.
 * @returns `host:port`, or `[host]:port` for IPv6.
 *
 * @example Usage
 * ```ts
 * import { formatHostPort } from "./host_port.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(formatHostPort("10.0.0.7", 7070), "10.0.0.7:7070");
 * assertEquals(formatHostPort("fd00::7", 7070), "[fd00::7]:7070");
 * ```
 */
export function formatHostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Whether `port` is a port a client can dial: an integer from 1 to 65535.
 *
 * @param port Any number.
 * @returns True for 1–65535.
 *
 * @example Usage
 * ```ts
 * import { isDialablePort } from "./host_port.ts";
 * import { assert } from "@std/assert";
 *
 * assert(isDialablePort(7070));
 * assert(!isDialablePort(0) && !isDialablePort(65536) && !isDialablePort(1.5));
 * ```
 */
export function isDialablePort(port: number): boolean {
  return Number.isInteger(port) && port >= 1 && port <= 65535;
}

/**
 * Orders addresses for a stable worker list: `10.0.0.2` before `10.0.0.10`
 * (digit runs compare as numbers), ties broken by plain code-unit order, so
 * the order is total and the same on every machine.
 *
 * @param a An address.
 * @param b Another.
 * @returns Negative, zero or positive, as `Array.prototype.sort` wants.
 *
 * @example Usage
 * ```ts
 * import { compareAddrs } from "./host_port.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const addrs = ["10.0.0.10:7070", "10.0.0.2:7070", "10.0.0.2:80"];
 * assertEquals(addrs.sort(compareAddrs), [
 *   "10.0.0.2:80",
 *   "10.0.0.2:7070",
 *   "10.0.0.10:7070",
 * ]);
 * ```
 */
export function compareAddrs(a: string, b: string): number {
  numericOrder ??= new Intl.Collator("en", { numeric: true });
  return numericOrder.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

// A fixed locale: the order must not depend on the machine's settings. Made
// on first use: a collator costs about 6 ms to make, which every process
// and every pool worker would pay at start-up.
let numericOrder: Intl.Collator | undefined;

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
// RFC 1123: letters, digits and inner hyphens, 1–63 characters a label.
const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Why `host` (lower case, no brackets, no colon) is not valid, if it is not. */
function hostProblem(host: string): string | undefined {
  if (host === "") return "missing host before :port";
  if (/^[\d.]+$/.test(host)) {
    const octets = IPV4.exec(host)?.slice(1);
    const valid = octets?.every((o) => Number(o) <= 255 && !/^0\d/.test(o));
    return valid ? undefined : `"${host}" is not an IPv4 address`;
  }
  if (host.length > 253) return "a host name has at most 253 characters";
  const labels = host.split(".");
  const bad = labels.find((label) => !DNS_LABEL.test(label));
  if (bad !== undefined) {
    return bad === ""
      ? `"${host}" has an empty label`
      : `"${bad}" is not a valid host name label (letters, digits, inner hyphens)`;
  }
  // The URL standard reads a host ending in a number as IPv4 (`a.1`).
  if (/^\d+$/.test(labels[labels.length - 1])) {
    return `"${host}" is neither an IPv4 address nor a host name`;
  }
  return undefined;
}

/** The canonical form of an IPv6 address, or undefined if it is not one. */
function ipv6HostOf(text: string): string | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(text) || !text.includes(":")) return undefined;
  try {
    return new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

function portOf(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return isDialablePort(port) ? port : undefined;
}

function portProblem(text: string): string {
  if (text === "") return "missing port after ':'";
  if (!/^\d+$/.test(text)) return `port "${text}" is not a number`;
  return `port ${text} is out of range (1-65535)`;
}
