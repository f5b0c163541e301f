# Corpus cases (paths under corpus/deeploy) and what Tessera does with them.

# Every case whose ops are in the foundation's op list: bit-exact outputs and activations.
set(tessera_corpus_supported
  Models/miniMobileNet
  Models/miniMobileNetv2
  Models/CNN_Linear1
  Models/CNN_Linear2
  Models/MLPerf/ImageClassification
  Models/MLPerf/AnomalyDetection
  Models/CCT/Int/ICCT
  Models/CCT/Int/ICCT_ITA
  Kernels/Integer/Add/Large
  Kernels/Integer/Add/MultIO
  Kernels/Integer/Add/Regular
  Kernels/Integer/Add/Regular_RQ
  Kernels/Integer/Concat
  Kernels/Integer/Conv/DW_1D
  Kernels/Integer/Conv/DW_2D
  Kernels/Integer/Conv/DW_2D_RQ
  Kernels/Integer/Conv/DW_3x3
  Kernels/Integer/Conv/DW_3x3_RQ
  Kernels/Integer/Conv/PW_2D
  Kernels/Integer/Conv/PW_2D_RQ/Regular_RQ
  Kernels/Integer/Conv/PW_2D_RQ/Unsigned_RQ
  Kernels/Integer/Conv/Regular_1D
  Kernels/Integer/Conv/Regular_1D_RQ
  Kernels/Integer/Conv/Regular_2D
  Kernels/Integer/Conv/Regular_2D_RQ
  Kernels/Integer/Conv/Regular_3x3
  Kernels/Integer/Conv/Regular_3x3_RQ
  Kernels/Integer/Conv/StriddedPadded_2D_RQ
  Kernels/Integer/GEMM/Batch_RQ
  Kernels/Integer/GEMM/Regular
  Kernels/Integer/GEMM/Regular_RQPerColumn
  Kernels/Integer/GEMM/Regular_RQPerRow
  Kernels/Integer/GEMM/TransB_RQ
  Kernels/Integer/Identity/InputIdentity
  Kernels/Integer/Identity/MultiOutputIdentity
  Kernels/Integer/Identity/OutputIdentity
  Kernels/Integer/MatMul/Add
  Kernels/Integer/MatMul/Batch
  Kernels/Integer/MatMul/Regular
  Kernels/Integer/MatMul/Regular_RQ
  Kernels/Integer/MaxPool/Regular_1D
  Kernels/Integer/MaxPool/Regular_2D
  Kernels/Integer/Pad/Regular_1D
  Kernels/Integer/Pad/Regular_2D
  Kernels/Integer/Slice
  Kernels/Integer/Sub
  Others/Backtracking
  Others/TypeInference
  Kernels/Integer/Hardswish/Regular
  Kernels/Integer/Hardswish/Regular_RQ
  Kernels/Integer/TrueIntegerDiv
  Kernels/Integer/ReduceMean
  Kernels/Integer/ReduceSum
  Kernels/Integer/Attention
  Kernels/Integer/RMSNorm
  Kernels/Integer/Softmax/Large
  Kernels/Integer/Softmax/Regular
  Kernels/Integer/iNoNorm
)

# Cases with an op outside the foundation's list ("case|op"): onnx2hpp must name the op. None
# left: the last two, Kernels/Mixed, are float ends written as float ops (below).
set(tessera_corpus_unsupported)

# Float graphs that quantize (Div, Add, Round, Clip) or dequantize (Sub, Mul) on the device:
# onnx2hpp takes them off as fake-quantized float ends; tests/float_boundary runs them through
# tessera::float_executor against the golden outputs.
set(tessera_corpus_float_ends
  Kernels/Mixed/Quant
  Kernels/Mixed/Dequant
)
set(tessera_corpus_unsupported_cases)
foreach(entry IN LISTS tessera_corpus_unsupported)
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 case)
  list(APPEND tessera_corpus_unsupported_cases ${case})
endforeach()
