// Runs ONNX models with ONNX Runtime (onnxruntime-node, CPU, one thread) for ort_oracle.py.
//   node run_ort.js JOBS.json
// JOBS.json: {"jobs": [{"model": PATH, "optimized": false,
//                       "inputs": [{"name": N, "type": "uint8", "dims": [..], "file": RAW}],
//                       "outputs": [{"name": N, "file": RAW}]}]}
// Inputs and outputs are raw little-endian element arrays; each output also gets RAW.json
// with its type and dims. "optimized": false runs with graph optimisations disabled (the plain
// ONNX float semantics of a QDQ/QOperator graph: DequantizeLinear, float op, QuantizeLinear);
// true with all of them (ONNX Runtime's fused integer kernels). Exit 1 on any failure.
'use strict';
const fs = require('fs');
const path = require('path');

let ort;
try {
  ort = require(path.join(__dirname, 'node_modules', 'onnxruntime-node'));
} catch (e) {
  ort = require('onnxruntime-node');  // NODE_PATH, a global install
}

const arrays = {
  uint8: Uint8Array, int8: Int8Array, int16: Int16Array, uint16: Uint16Array, int32: Int32Array,
  float32: Float32Array, int64: BigInt64Array, float64: Float64Array,
};

function load(input) {
  const bytes = fs.readFileSync(input.file);
  const T = arrays[input.type];
  if (!T) throw new Error(`unsupported input type ${input.type}`);
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new ort.Tensor(input.type, new T(copy.buffer), input.dims);
}

async function main() {
  const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8')).jobs;
  const sessions = new Map();
  for (const job of jobs) {
    const key = `${job.model}|${job.optimized ? 1 : 0}`;
    let session = sessions.get(key);
    if (!session) {
      session = await ort.InferenceSession.create(job.model, {
        intraOpNumThreads: 1,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        graphOptimizationLevel: job.optimized ? 'all' : 'disabled',
      });
      sessions.set(key, session);
    }
    const feeds = {};
    for (const input of job.inputs) feeds[input.name] = load(input);
    const results = await session.run(feeds, job.outputs.map((o) => o.name));
    for (const o of job.outputs) {
      const t = results[o.name];
      fs.writeFileSync(o.file, Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
      fs.writeFileSync(o.file + '.json', JSON.stringify({type: t.type, dims: t.dims}));
    }
  }
}

main().catch((e) => {
  console.error(`run_ort.js: ${e && e.message ? e.message : e}`);
  process.exit(1);
});
