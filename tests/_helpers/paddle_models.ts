/**
 * Where the tests find the real models PaddlePaddle saved: the folder
 * `RILL_PADDLE_MODELS` names, else `../shared/paddle-models` beside the
 * repository. The models are test data that is not committed (each
 * folder's `SOURCE.md` says where it came from), so a fresh clone outside
 * the workplace has no such folder: then the tests that read it are
 * ignored, and `PADDLE_MODELS_SKIPPED` says why. CI (`CI=true`) has the
 * folder and must run them: there they are never ignored, and fail if the
 * folder is missing.
 *
 * @module
 */
import { ROOT } from "./rill_process.ts";

/** The models' folder, without a trailing slash. */
export const PADDLE_MODELS: string = (Deno.env.get("RILL_PADDLE_MODELS") ??
  `${ROOT}../shared/paddle-models`).replace(/\/$/, "");

function isDirectory(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

/**
 * Why the tests that read the models are ignored: the folder is absent
 * outside CI. `undefined` when they run.
 */
export const PADDLE_MODELS_SKIPPED: string | undefined =
  isDirectory(PADDLE_MODELS) || Deno.env.get("CI") === "true"
    ? undefined
    : `${PADDLE_MODELS} is absent (set RILL_PADDLE_MODELS=DIR to run them)`;

/** The `ignore` flag of every test that reads the models. */
export const IGNORE_PADDLE_MODELS: boolean = PADDLE_MODELS_SKIPPED !==
  undefined;

/**
 * The PIR programs' folder (Paddle 3's `inference.json`):
 * `RILL_PADDLE_MODELS_PIR`, else `../shared/paddle-models-pir` beside the
 * repository, without a trailing slash. Skipped as the models are.
 */
export const PADDLE_MODELS_PIR: string =
  (Deno.env.get("RILL_PADDLE_MODELS_PIR") ??
    `${ROOT}../shared/paddle-models-pir`).replace(/\/$/, "");

/**
 * Why the tests that read the PIR programs are ignored: the folder is
 * absent outside CI. `undefined` when they run.
 */
export const PADDLE_MODELS_PIR_SKIPPED: string | undefined =
  isDirectory(PADDLE_MODELS_PIR) || Deno.env.get("CI") === "true"
    ? undefined
    : `${PADDLE_MODELS_PIR} is absent (set RILL_PADDLE_MODELS_PIR=DIR to run them)`;
