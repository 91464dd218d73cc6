import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertStringIncludes,
} from "@std/assert";
import {
  COMMAND_NAMES,
  commandHelp,
  refuseFlags,
  usage,
} from "../../../runtime/cli/_help.ts";
import { parseCommandLine } from "../../../runtime/cli/_command_line.ts";
import { WORKER_LIMIT_FLAGS } from "../../../runtime/cluster/worker_limits.ts";
import { ProgramError } from "../../../runtime/core/errors.ts";
import { VERSION } from "../../../runtime/cli/version.ts";
import { cli } from "../../_helpers/cli_output.ts";

/** Every `--flag` a text names. */
function flagsIn(text: string): Set<string> {
  return new Set(text.match(/--[a-z][a-z-]*/g) ?? []);
}

Deno.test("usage() lists every command and every flag the command line parses", () => {
  const text = usage();
  for (const c of COMMAND_NAMES.filter((c) => c !== "run")) {
    assertStringIncludes(text, `mod.ts ${c} `);
  }
  const parsed = Object.keys(
    parseCommandLine([
      ...["--workers=1", "--device=cpu", "--explain", "--seed=1", "--feed=a"],
      ...["--fetch=a", "--params=p", "--worker-addrs=a", "--all-attrs"],
      ...["--format=dot", "--out=f"],
      ...["--out-dir=d", "--label-selector=s", "--port=1", "--listen=l"],
      ...["--insecure", "--tls-cert=c", "--tls-key=k", "--tls-ca=a"],
      ...["--drain-timeout=1s", "--health-listen=h", "--namespace=n"],
      ...["--min-workers=1", "--discovery-timeout=1s", "--dial-by=ip"],
      ...["--rpc-keepalive=1s", "--rpc-timeout=1m", "--rpc-redial=1s"],
      ...WORKER_LIMIT_FLAGS.map(({ flag }) => `--${flag}=1`),
      ...["--help", "--version"],
    ]).values,
  );
  const listed = flagsIn(text);
  for (const flag of parsed) assert(listed.has(`--${flag}`), flag);
});

Deno.test("commandHelp() shows a command's own flags and no other command's", () => {
  const worker = commandHelp("worker");
  assertStringIncludes(worker, "--listen HOST:PORT");
  for (const { flag } of WORKER_LIMIT_FLAGS) {
    assertStringIncludes(worker, `--${flag}`);
  }
  for (const other of ["--workers", "--device", "--feed", "--all-attrs"]) {
    assert(!worker.includes(other), other);
  }
  const run = flagsIn(commandHelp("run"));
  for (const flag of ["--workers", "--device", "--explain", "--feed"]) {
    assert(run.has(flag), flag);
  }
  assert(!run.has("--listen") && !run.has("--out-dir"));
});

Deno.test("refuseFlags() refuses a flag the command does not take, naming both", () => {
  const refused = (
    command: "run" | "dump" | "transpile" | "worker",
    args: string[],
  ) => {
    try {
      refuseFlags(command, parseCommandLine(args).values);
      return undefined;
    } catch (e) {
      assertInstanceOf(e, ProgramError);
      return (e as ProgramError).message;
    }
  };
  assertEquals(
    refused("worker", ["--device", "webgpu", "--workers", "4"]),
    "--workers: the worker command does not take it",
  );
  assertEquals(
    refused("worker", ["--feed", "x=x.npy"]),
    "--feed: the worker command does not take it",
  );
  assertEquals(
    refused("run", ["--listen", "127.0.0.1:0"]),
    "--listen: only the worker command takes it",
  );
  assertEquals(refused("dump", ["--all-attrs"]), undefined);
  assertEquals(refused("run", ["--workers", "2", "--explain"]), undefined);
});

Deno.test("help CMD and CMD --help print that command's help; --version the version", async () => {
  const viaHelp = await cli(["help", "worker"]);
  const viaFlag = await cli(["worker", "--help"]);
  assertEquals(viaHelp, { code: 0, stdout: commandHelp("worker"), stderr: "" });
  assertEquals(viaFlag, viaHelp);
  assertEquals(await cli(["help"]), { code: 0, stdout: usage(), stderr: "" });
  assertEquals(await cli(["--version"]), {
    code: 0,
    stdout: `rill ${VERSION}\n`,
    stderr: "",
  });
  const unknown = await cli(["help", "serve"]);
  assertEquals([unknown.code, unknown.stderr], [
    1,
    'error: help: "serve" is not one of run, dump, graph, vet, transpile, worker, ops\n',
  ]);
});

Deno.test("a flag the command cannot use is an error, never ignored", async () => {
  const r = await cli([
    "worker",
    "w.pb",
    "--listen",
    "127.0.0.1:0",
    "--device",
    "webgpu",
  ]);
  assertEquals(r, {
    code: 1,
    stdout: "",
    stderr: "error: --device: the worker command does not take it\n",
  });
  const dump = await cli(["dump", "examples/mult.pb", "--seed", "3"]);
  assertEquals(
    dump.stderr,
    "error: --seed: the dump command does not take it\n",
  );
});

Deno.test("the drain, health and discovery flags are refused by the commands that cannot use them", async () => {
  const worker = ["worker", "w.pb", "--listen", "127.0.0.1:0", "--insecure"];
  for (
    const [args, error] of [
      [
        [...worker, "--min-workers", "2"],
        "--min-workers: the worker command does not take it",
      ],
      [
        [...worker, "--namespace", "rill"],
        "--namespace: the worker command does not take it",
      ],
      [
        [...worker, "--discovery-timeout", "1m"],
        "--discovery-timeout: the worker command does not take it",
      ],
      [
        [...worker, "--label-selector", "a=b"],
        "--label-selector: the worker command does not take it",
      ],
      [
        ["examples/mult.pb", "--drain-timeout", "5s"],
        "--drain-timeout: only the worker command takes it",
      ],
      [
        ["examples/mult.pb", "--health-listen", "127.0.0.1:0"],
        "--health-listen: only the worker command takes it",
      ],
      [
        ["transpile", "m.pb", "--out-dir", "d", "--min-workers", "2"],
        "--min-workers: the transpile command does not take it",
      ],
    ] as const
  ) {
    assertEquals(await cli([...args]), {
      code: 1,
      stdout: "",
      stderr: `error: ${error}\n`,
    });
  }
  const run = commandHelp("run");
  for (
    const flag of [
      "--label-selector",
      "--namespace",
      "--min-workers",
      "--discovery-timeout",
      "--dial-by",
    ]
  ) {
    assertStringIncludes(run, flag);
  }
  const help = commandHelp("worker");
  for (const flag of ["--drain-timeout D", "--health-listen HOST:PORT"]) {
    assertStringIncludes(help, flag);
  }
});

Deno.test("--rpc-keepalive, --rpc-timeout and --rpc-redial take durations, on a run only", async () => {
  const bad = await cli(["examples/mult.pb", "--rpc-keepalive", "soon"]);
  assertEquals(bad.code, 1);
  assertEquals(
    bad.stderr,
    'error: --rpc-keepalive: "soon" is not a duration (500ms, 30s, 1.5m, 2h)\n',
  );
  const worker = await cli([
    "worker",
    "w.pb",
    "--listen",
    "127.0.0.1:0",
    "--rpc-timeout",
    "1m",
  ]);
  assertEquals(worker.code, 1);
  assertStringIncludes(worker.stderr, "--rpc-timeout: ");
  const ok = await cli([
    "examples/mult.pb",
    "--workers",
    "1",
    "--rpc-keepalive",
    "2s",
    "--rpc-timeout",
    "1m",
    "--rpc-redial",
    "30s",
  ]);
  assertEquals([ok.code, ok.stderr], [0, ""]);
  assertStringIncludes(commandHelp("run"), "--rpc-keepalive D");
  assertStringIncludes(commandHelp("run"), "--rpc-redial D");
  const redial = await cli(["examples/mult.pb", "--rpc-redial", "0"]);
  assertEquals(redial.code, 1);
  assertStringIncludes(redial.stderr, "error: --rpc-redial: ");
});
