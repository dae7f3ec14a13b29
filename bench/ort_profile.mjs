// Writes an ONNX Runtime (npm onnxruntime-node, CPU) profile of a model: the JSON that
// `graphlens` imports as a profile (tests/fixtures/ort_profile_sample_cnn.json came from here).
//   node ort_profile.mjs MODEL OUT.json [--runs N] [--threads T] [--seed S]
// Graph optimizations are off, so every event names a node of MODEL; float inputs are seeded
// uniform in [-1, 1), symbolic dims are 1.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import ort from "onnxruntime-node";

const [modelPath, outPath, ...rest] = process.argv.slice(2);
if (!modelPath || !outPath) {
  console.error("usage: node ort_profile.mjs MODEL OUT.json [--runs N] [--threads T] [--seed S]");
  process.exit(2);
}
const option = (name, fallback) => {
  const i = rest.indexOf(`--${name}`);
  return i >= 0 ? Number(rest[i + 1]) : fallback;
};

let state = option("seed", 1) >>> 0 || 1;
const random = () => {  // xorshift32: the same inputs on every machine
  state ^= state << 13; state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5; state >>>= 0;
  return state / 2 ** 32;
};

const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), "ort_profile-"));
const session = await ort.InferenceSession.create(modelPath, {
  executionProviders: ["cpu"], graphOptimizationLevel: "disabled", enableProfiling: true,
  profileFilePrefix: path.join(profileDir, "profile"),
  intraOpNumThreads: option("threads", 1), interOpNumThreads: 1, executionMode: "sequential",
});
const feeds = {};
for (const name of session.inputNames) {
  const meta = session.inputMetadata.find((m) => m.name === name);
  const dims = meta.shape.map((d) => (typeof d === "number" && d > 0 ? d : 1));
  const data = Float32Array.from({ length: dims.reduce((a, b) => a * b, 1) }, () => 2 * random() - 1);
  feeds[name] = new ort.Tensor("float32", data, dims);
}
for (let i = 0; i < option("runs", 2); ++i) await session.run(feeds);
session.endProfiling();  // writes profileDir/profile_<date>.json (the Node binding returns nothing)
const [written] = fs.readdirSync(profileDir);
fs.copyFileSync(path.join(profileDir, written), outPath);
fs.rmSync(profileDir, { recursive: true });
console.log(`wrote ${outPath}`);
