// host:port parsing: every accepted form, and an error naming the entry and
// the fault for each rejected one.

import { assertEquals, assertThrows } from "@std/assert";
import {
  compareAddrs,
  formatHostPort,
  HostPortError,
  parseHostPort,
} from "../../../runtime/cluster/host_port.ts";
import { ProgramError } from "../../../runtime/core/errors.ts";

Deno.test("parseHostPort() accepts IPv4, bracketed IPv6 and host names", () => {
  const cases: [string, string, number][] = [
    ["10.0.0.7:7070", "10.0.0.7", 7070],
    ["  127.0.0.1:1 ", "127.0.0.1", 1],
    ["0.0.0.0:65535", "0.0.0.0", 65535],
    ["[::1]:80", "::1", 80],
    ["[FD00:0:0::7]:7070", "fd00::7", 7070],
    ["[::ffff:10.0.0.7]:7070", "::ffff:a00:7", 7070],
    ["localhost:7070", "localhost", 7070],
    [
      "Rill-Worker-0.rill.default.svc.cluster.local:7070",
      "rill-worker-0.rill.default.svc.cluster.local",
      7070,
    ],
    ["a1.b-2.io:443", "a1.b-2.io", 443],
  ];
  for (const [text, host, port] of cases) {
    assertEquals(parseHostPort(text), { host, port }, text);
  }
});

Deno.test("parseHostPort() rejects bad entries with the entry and the reason", () => {
  const cases: [string, string][] = [
    ["", "empty address"],
    ["10.0.0.7", "missing :port"],
    ["10.0.0.7:", "missing port after ':'"],
    [":7070", "missing host before :port"],
    ["10.0.0.7:0", "port 0 is out of range (1-65535)"],
    ["10.0.0.7:65536", "port 65536 is out of range (1-65535)"],
    ["10.0.0.7:123456", "port 123456 is out of range (1-65535)"],
    ["10.0.0.7:http", 'port "http" is not a number'],
    ["10.0.0.7:-1", 'port "-1" is not a number'],
    ["10.0.0.256:80", '"10.0.0.256" is not an IPv4 address'],
    ["10.0.7:80", '"10.0.7" is not an IPv4 address'],
    ["010.0.0.7:80", '"010.0.0.7" is not an IPv4 address'],
    ["::1:80", "an IPv6 address needs brackets: [::1]:80"],
    ["[::1:80", '"[" without a closing "]"'],
    ["[::1]80", "missing :port after the IPv6 address"],
    ["[::g]:80", '"::g" is not an IPv6 address'],
    ["[fe80::1%eth0]:80", '"fe80::1%eth0" is not an IPv6 address'],
    ["[10.0.0.7]:80", '"10.0.0.7" is not an IPv6 address'],
    [
      "-worker:80",
      '"-worker" is not a valid host name label (letters, digits, inner hyphens)',
    ],
    [
      "worker_0:80",
      '"worker_0" is not a valid host name label (letters, digits, inner hyphens)',
    ],
    ["a..b:80", '"a..b" has an empty label'],
    ["worker.1:80", '"worker.1" is neither an IPv4 address nor a host name'],
    [
      `${"a".repeat(64)}:80`,
      `"${
        "a".repeat(64)
      }" is not a valid host name label (letters, digits, inner hyphens)`,
    ],
    [`${"a.".repeat(127)}ab:80`, "a host name has at most 253 characters"],
    [
      "http://10.0.0.7:80",
      "give host:port, not a URL",
    ],
    ["worker:0:80", "\"worker:0\" is not a host (too many ':')"],
  ];
  for (const [text, reason] of cases) {
    const e = assertThrows(
      () => parseHostPort(text, { source: "--worker-addrs" }),
      HostPortError,
      undefined,
      text,
    );
    assertEquals([e.entry, e.reason, e.source], [
      text.trim(),
      reason,
      "--worker-addrs",
    ], text);
  }
});

Deno.test("HostPortError is a one-line ProgramError naming source and entry", () => {
  const e = assertThrows(
    () => parseHostPort("w:0\n", { source: "RILL_WORKERS" }),
    HostPortError,
  );
  assertEquals(e instanceof ProgramError, true);
  assertEquals(
    e.message,
    'RILL_WORKERS: "w:0": port 0 is out of range (1-65535)',
  );
  const escaped = assertThrows(() => parseHostPort("w\u001b:1"), HostPortError);
  assertEquals(escaped.message.includes("\u001b"), false);
});

Deno.test("formatHostPort() brackets IPv6 hosts only", () => {
  assertEquals(formatHostPort("10.0.0.7", 1), "10.0.0.7:1");
  assertEquals(formatHostPort("worker-0", 2), "worker-0:2");
  assertEquals(formatHostPort("::1", 3), "[::1]:3");
});

Deno.test("compareAddrs() orders digit runs as numbers, and totally", () => {
  const addrs = [
    "10.0.0.10:7070",
    "[fd00::a]:7070",
    "10.0.1.2:7070",
    "10.0.0.9:7070",
    "10.0.0.9:80",
    "[fd00::9]:7070",
  ];
  assertEquals([...addrs].sort(compareAddrs), [
    "[fd00::9]:7070",
    "[fd00::a]:7070",
    "10.0.0.9:80",
    "10.0.0.9:7070",
    "10.0.0.10:7070",
    "10.0.1.2:7070",
  ]);
  assertEquals(
    [...addrs].reverse().sort(compareAddrs),
    [...addrs].sort(compareAddrs),
  );
});
