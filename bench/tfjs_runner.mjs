// TensorFlow.js (npm @tensorflow/tfjs, its pure-JavaScript CPU backend) side of the TF.js
// cross-checks, the oracle for TF.js GraphModels as ort_runner.mjs is for ONNX models.
//   node tfjs_runner.mjs signature MODEL.json                       -> JSON inputs/outputs (name, dtype, shape)
//   node tfjs_runner.mjs run   MODEL.json INPUTS.json OUT_DIR       -> output_K.bin + outputs.json
//   node tfjs_runner.mjs bench MODEL.json INPUTS.json --runs N --warmup W -> JSON medians
// INPUTS.json: [{"name", "type": "float32"|"int32"|..., "dims": [...], "file": raw little-endian data}]
// The model and its weight shards are read from disk and handed to tf.io.fromMemory: no network,
// no native binding.
import fs from "node:fs";
import path from "node:path";
import * as tf from "@tensorflow/tfjs";

const [mode, modelPath, inputsPath, ...rest] = process.argv.slice(2);
const option = (name, fallback) => {
  const i = rest.indexOf(`--${name}`);
  return i >= 0 ? Number(rest[i + 1]) : fallback;
};

async function loadModel(file) {
  const json = JSON.parse(fs.readFileSync(file, "utf8"));
  const dir = path.dirname(file);
  const weightSpecs = [];
  const buffers = [];
  for (const group of json.weightsManifest ?? []) {
    weightSpecs.push(...group.weights);
    for (const shard of group.paths) buffers.push(fs.readFileSync(path.join(dir, shard)));
  }
  const all = Buffer.concat(buffers);
  const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength);
  return tf.loadGraphModel(tf.io.fromMemory({
    modelTopology: json.modelTopology, weightSpecs, weightData, format: json.format,
    generatedBy: json.generatedBy, convertedBy: json.convertedBy,
    signature: json.signature, userDefinedMetadata: json.userDefinedMetadata,
  }));
}

const arrays = { float32: Float32Array, int32: Int32Array, bool: Uint8Array };

function loadFeeds(spec) {
  const feeds = {};
  for (const input of spec) {
    const bytes = fs.readFileSync(input.file);
    const Type = arrays[input.type];
    if (!Type) throw new Error(`input ${input.name}: TF.js takes float32, int32 or bool, not ${input.type}`);
    const data = new Type(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    feeds[input.name] = tf.tensor(data, input.dims, input.type);
  }
  return feeds;
}

const median = (samples) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const n = sorted.length;
  return n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
};

await tf.setBackend("cpu");
const model = await loadModel(modelPath);
const outputNames = model.outputs.map((o) => o.name);
// execute() refuses graphs with control flow or dynamic ops (NonMaxSuppression, Where);
// executeAsync() runs everything.
const execute = async (feeds) => {
  const result = await model.executeAsync(feeds, outputNames);
  return Array.isArray(result) ? result : [result];
};

if (mode === "signature") {
  const describe = (list) => list.map((t) => ({ name: t.name, dtype: t.dtype, shape: t.shape ?? null }));
  console.log(JSON.stringify({ inputs: describe(model.inputs), outputs: describe(model.outputs) }));
} else if (mode === "run") {
  const outDir = rest[0];
  fs.mkdirSync(outDir, { recursive: true });
  const results = await execute(loadFeeds(JSON.parse(fs.readFileSync(inputsPath, "utf8"))));
  const meta = [];
  for (let k = 0; k < results.length; ++k) {
    const t = results[k];
    const data = await t.data();
    const file = path.join(outDir, `output_${k}.bin`);
    fs.writeFileSync(file, Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    meta.push({ name: outputNames[k], type: t.dtype, dims: t.shape, file });
  }
  fs.writeFileSync(path.join(outDir, "outputs.json"), JSON.stringify(meta));
} else if (mode === "bench") {
  const feeds = loadFeeds(JSON.parse(fs.readFileSync(inputsPath, "utf8")));
  const once = async () => {
    const results = await execute(feeds);
    for (const t of results) await t.data();  // the CPU backend computes lazily: wait for the values
    tf.dispose(results);
  };
  for (let i = 0; i < option("warmup", 2); ++i) await once();
  const samples = [];
  for (let i = 0; i < option("runs", 10); ++i) {
    const start = process.hrtime.bigint();
    await once();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const sorted = [...samples].sort((a, b) => a - b);
  console.log(JSON.stringify({ min_ms: sorted[0], median_ms: median(samples), max_ms: sorted.at(-1), samples_ms: samples }));
} else {
  console.error("usage: node tfjs_runner.mjs signature|run|bench MODEL.json ...");
  process.exit(2);
}
