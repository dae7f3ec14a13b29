// ONNX Runtime (npm onnxruntime-node, CPU) side of the benchmarks and cross-checks.
//   node ort_runner.mjs bench MODEL INPUTS.json --threads T --runs N --warmup W   -> JSON medians
//   node ort_runner.mjs run   MODEL INPUTS.json OUT_DIR                            -> output_K.bin + outputs.json
//   node ort_runner.mjs session MODEL - --runs N [--from-path 1]  -> JSON median_ms of InferenceSession.create
//                                                       (from the bytes in memory, or with 1 from the file itself)
// INPUTS.json: [{"name", "type": "float32"|"int64"|..., "dims": [...], "file": raw little-endian data}]
import fs from "node:fs";
import path from "node:path";
import ort from "onnxruntime-node";

const [mode, modelPath, inputsPath, ...rest] = process.argv.slice(2);
const option = (name, fallback) => {
  const i = rest.indexOf(`--${name}`);
  return i >= 0 ? Number(rest[i + 1]) : fallback;
};
const arrays = { float32: Float32Array, float64: Float64Array, int64: BigInt64Array, int32: Int32Array,
                 uint8: Uint8Array, int8: Int8Array, bool: Uint8Array };

function loadFeeds(spec) {
  const feeds = {};
  for (const input of spec) {
    const bytes = fs.readFileSync(input.file);
    const data = new arrays[input.type](bytes.buffer, bytes.byteOffset, bytes.byteLength / arrays[input.type].BYTES_PER_ELEMENT);
    feeds[input.name] = new ort.Tensor(input.type, data, input.dims);
  }
  return feeds;
}

const threads = option("threads", 2);
const sessionOptions = {
  executionProviders: ["cpu"], graphOptimizationLevel: "all",
  intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: "sequential",
};
const median = (samples) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const n = sorted.length;
  return n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
};
if (mode === "session") {  // session creation with every graph optimization on, model bytes in memory
  const bytes = option("from-path", 0) ? modelPath : fs.readFileSync(modelPath);
  const samples = [];
  for (let i = 0; i < option("runs", 5); ++i) {
    const start = process.hrtime.bigint();
    const s = await ort.InferenceSession.create(bytes, sessionOptions);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    await s.release();
  }
  console.log(JSON.stringify({ median_ms: median(samples), samples_ms: samples }));
  process.exit(0);
}
const session = await ort.InferenceSession.create(modelPath, sessionOptions);
const feeds = loadFeeds(JSON.parse(fs.readFileSync(inputsPath, "utf8")));

if (mode === "bench") {
  for (let i = 0; i < option("warmup", 3); ++i) await session.run(feeds);
  const samples = [];
  for (let i = 0; i < option("runs", 20); ++i) {
    const start = process.hrtime.bigint();
    await session.run(feeds);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const sorted = [...samples].sort((a, b) => a - b);
  const n = sorted.length;
  const median = n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  console.log(JSON.stringify({ min_ms: sorted[0], median_ms: median, max_ms: sorted[n - 1], samples_ms: samples }));
} else if (mode === "run") {
  const outDir = rest[0];
  fs.mkdirSync(outDir, { recursive: true });
  const results = await session.run(feeds);
  const meta = session.outputNames.map((name, k) => {
    const t = results[name];
    const file = path.join(outDir, `output_${k}.bin`);
    fs.writeFileSync(file, Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    return { name, type: t.type, dims: t.dims, file };
  });
  fs.writeFileSync(path.join(outDir, "outputs.json"), JSON.stringify(meta));
} else {
  console.error("usage: node ort_runner.mjs bench|run MODEL INPUTS.json ...");
  process.exit(2);
}
