// The service-account files and the account named in a token.

import { assert, assertEquals, assertRejects } from "@std/assert";
import { KubeConfigError } from "../../../runtime/cluster/kube_errors.ts";
import {
  readClusterCa,
  readServiceAccountNamespace,
  readServiceAccountToken,
  serviceAccountOfToken,
} from "../../../runtime/cluster/service_account.ts";
import { withTempDir } from "../../_helpers/with_temp_dir.ts";
import { serviceAccountJwt } from "./_kube_pods.ts";

Deno.test("readServiceAccountToken() trims, and names a missing or empty file", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/token`, " abc.def.ghi\n");
    assertEquals(await readServiceAccountToken(dir), "abc.def.ghi");
    await Deno.writeTextFile(`${dir}/token`, "\n");
    const empty = await assertRejects(
      () => readServiceAccountToken(dir),
      KubeConfigError,
    );
    assertEquals(empty.file, `${dir}/token`);
    await Deno.remove(`${dir}/token`);
    const missing = await assertRejects(
      () => readServiceAccountToken(dir),
      KubeConfigError,
    );
    assertEquals(missing.file, `${dir}/token`);
  });
});

Deno.test("readServiceAccountNamespace() reads the namespace file", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/namespace`, "batch-jobs");
    assertEquals(await readServiceAccountNamespace(dir), "batch-jobs");
  });
});

Deno.test("readClusterCa() wants at least one PEM certificate", async () => {
  await withTempDir(async (dir) => {
    const pem =
      "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    await Deno.writeTextFile(`${dir}/ca.crt`, pem);
    assertEquals(await readClusterCa(dir), pem.trim());
    await Deno.writeTextFile(`${dir}/ca.crt`, "-----BEGIN PRIVATE KEY-----\n");
    const e = await assertRejects(() => readClusterCa(dir), KubeConfigError);
    assertEquals(e.file, `${dir}/ca.crt`);
  });
});

Deno.test("serviceAccountOfToken() reads the sub claim of a base64url payload", () => {
  assertEquals(
    serviceAccountOfToken(serviceAccountJwt("rill:rill-master")),
    "rill/rill-master",
  );
  // "?>" and "??>>" put "/" and "+" in base64: "_" and "-" in base64url.
  const payload = btoa(
    JSON.stringify({ x: "?>??>>", sub: "system:serviceaccount:a:b" }),
  )
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  assert(payload.includes("-") && payload.includes("_"));
  assertEquals(serviceAccountOfToken(`h.${payload}.s`), "a/b");
  for (
    const token of ["", "opaque", "a.!!!.c", `a.${btoa('{"sub":"alice"}')}.c`]
  ) {
    assertEquals(serviceAccountOfToken(token), undefined, token);
  }
});
