"""The ONNX graph of a BERT encoder, written from its safetensors weights with the `onnx` package
alone: token ids in, the last hidden state out (pooling and normalisation stay in numpy, see
`onnx_encoder`). This is what lets the default install embed without torch: the graph is the
arithmetic of Hugging Face's `BertModel` in eval mode (absolute positions, exact erf GELU,
post-layer-norm), checked against sentence-transformers by the test suite.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kg_brain.base.errors import SetupError

OPSET = 18
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT = "last_hidden_state"


@dataclass(frozen=True)
class BertShape:
    layers: int
    heads: int
    hidden: int
    eps: float

    @classmethod
    def read(cls, config_file: Path) -> BertShape:
        """The shape from config.json; anything but a plain absolute-position GELU BERT is
        refused, since the graph would not compute what the model computes."""
        try:
            config: dict[str, Any] = json.loads(config_file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SetupError(f"{config_file} could not be read ({exc})") from exc
        kind = (config.get("model_type"), config.get("hidden_act"),
                config.get("position_embedding_type", "absolute"))
        if kind != ("bert", "gelu", "absolute"):
            raise SetupError(f"{config_file}: the ONNX runtimes build BERT encoders with GELU and "
                             f"absolute positions, not {kind}; use EMBEDDING_RUNTIME=torch")
        return cls(int(config["num_hidden_layers"]), int(config["num_attention_heads"]),
                   int(config["hidden_size"]), float(config["layer_norm_eps"]))


class _Graph:
    """Nodes and initialisers under construction, with fresh names for intermediate values."""

    def __init__(self, weights: Weights, int8: bool) -> None:
        self.weights = weights
        self.int8 = int8
        self.nodes: list[Any] = []
        self.initialisers: list[tuple[str, np.ndarray]] = []
        self._count = 0

    def op(self, kind: str, *inputs: str, **attributes: Any) -> str:
        return self.ops(kind, 1, *inputs, **attributes)[0]

    def ops(self, kind: str, outputs: int, *inputs: str, **attributes: Any) -> list[str]:
        from onnx import helper

        self._count += 1
        names = [f"{kind.lower()}_{self._count}_{i}" for i in range(outputs)]
        self.nodes.append(helper.make_node(kind, list(inputs), names, **attributes))
        return names

    def const(self, name: str, value: np.ndarray) -> str:
        self.initialisers.append((name, value))
        return name

    def weight(self, key: str, transpose: bool = False) -> str:
        value = self.weights[key]
        return self.const(key, np.ascontiguousarray(value.T if transpose else value))

    def dense(self, x: str, prefix: str) -> str:
        """x @ W^T + b, with W stored transposed so the MatMul's weight is its second input."""
        product = self._int8_matmul(x, prefix) if self.int8 else \
            self.op("MatMul", x, self.weight(f"{prefix}.weight", True))
        return self.op("Add", product, self.weight(f"{prefix}.bias"))

    def _int8_matmul(self, x: str, prefix: str) -> str:
        """Dynamic int8, as onnxruntime's `quantize_dynamic(per_channel=True)` writes it: the
        weight symmetric int8 with one scale per output channel (per-tensor scales cost far
        more accuracy on this model), the activation uint8 with a scale computed per call."""
        weight = self.weights[f"{prefix}.weight"].T
        scale = np.abs(weight).max(axis=0) / 127
        scale[scale == 0] = 1.0
        quantised = np.clip(np.round(weight / scale), -127, 127).astype(np.int8)
        x_q, x_scale, x_zero = self.ops("DynamicQuantizeLinear", 3, x)
        product = self.op("MatMulInteger", x_q, self.const(f"{prefix}.weight_int8", quantised),
                          x_zero)
        scales = self.op("Mul", x_scale, self.const(f"{prefix}.weight_scale",
                                                    scale.astype(np.float32)))
        return self.op("Mul", self.op("Cast", product, to=1), scales)  # 1 = FLOAT

    def layer_norm(self, x: str, prefix: str, eps: float) -> str:
        return self.op("LayerNormalization", x, self.weight(f"{prefix}.weight"),
                       self.weight(f"{prefix}.bias"), axis=-1, epsilon=eps)


class Weights:
    """The tensors by their `BertModel` names (a `bert.` prefix, as in task checkpoints, is
    dropped), read from the file one at a time as the graph takes them, so the whole model is
    never held twice in memory."""

    def __init__(self, weights_file: Path) -> None:
        from safetensors import safe_open

        try:
            self._file = safe_open(str(weights_file), framework="numpy")
        except Exception as exc:  # safetensors raises its own error types on a damaged file
            raise SetupError(f"{weights_file} is not a readable safetensors file ({exc})") from exc
        self._names = {k.removeprefix("bert."): k for k in self._file.keys()}

    def __getitem__(self, name: str) -> np.ndarray:
        return np.asarray(self._file.get_tensor(self._names[name]), dtype=np.float32)

    def close(self) -> None:
        """Unmap the file (its pages count as resident memory while mapped)."""
        del self._file


def build_bert_graph(weights_file: Path, config_file: Path, out: Path, int8: bool) -> None:
    """Write the encoder's ONNX model to `out` (dynamic batch and sequence axes), with int8
    weights in its dense layers when `int8`."""
    from onnx import TensorProto, helper, save_model

    shape = BertShape.read(config_file)
    graph = _Graph(Weights(weights_file), int8)
    try:
        hidden = _embeddings(graph, shape)
        bias = _attention_bias(graph)
        for index in range(shape.layers):
            hidden = _layer(graph, hidden, bias, f"encoder.layer.{index}", shape)
    except KeyError as exc:
        raise SetupError(f"{weights_file} lacks the BERT weight {exc}; "
                         "use EMBEDDING_RUNTIME=torch") from exc
    finally:
        graph.weights.close()
    graph.nodes.append(helper.make_node("Identity", [hidden], [OUTPUT]))
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"])
              for n in INPUTS]
    output = helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT,
                                           ["batch", "sequence", shape.hidden])
    model = helper.make_model(helper.make_graph(graph.nodes, "bert_encoder", inputs, [output]),
                              opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="kg-brain")
    _move_initialisers(graph.initialisers, model.graph.initializer)
    save_model(model, str(out))


def _move_initialisers(arrays: list[tuple[str, np.ndarray]], into: Any) -> None:
    """Each array becomes a tensor of the model and is dropped at once: the weights are held
    once, not once per protobuf copy (the first build's peak memory is what `kg-brain wire`
    costs)."""
    from onnx import numpy_helper

    while arrays:
        name, value = arrays.pop()
        into.append(numpy_helper.from_array(value, name))


def _embeddings(graph: _Graph, shape: BertShape) -> str:
    """Word + absolute position + token type embeddings, layer-normalised."""
    length = graph.op("Slice", graph.op("Shape", "input_ids"),
                      graph.const("one", np.array([1], np.int64)),
                      graph.const("two", np.array([2], np.int64)))
    positions = graph.op("Range", graph.const("zero_scalar", np.array(0, np.int64)),
                         graph.op("Squeeze", length, graph.const("axis0", np.array([0], np.int64))),
                         graph.const("one_scalar", np.array(1, np.int64)))
    words = graph.op("Gather", graph.weight("embeddings.word_embeddings.weight"), "input_ids")
    where = graph.op("Gather", graph.weight("embeddings.position_embeddings.weight"), positions)
    kinds = graph.op("Gather", graph.weight("embeddings.token_type_embeddings.weight"),
                     "token_type_ids")
    summed = graph.op("Add", graph.op("Add", words, where), kinds)
    return graph.layer_norm(summed, "embeddings.LayerNorm", shape.eps)


def _attention_bias(graph: _Graph) -> str:
    """(1 - mask) * float32 min, shaped [batch, 1, 1, sequence], as `BertModel` masks padding."""
    mask = graph.op("Cast", "attention_mask", to=1)  # 1 = FLOAT
    inverted = graph.op("Sub", graph.const("one_float", np.array(1.0, np.float32)), mask)
    scaled = graph.op("Mul", inverted,
                      graph.const("float_min", np.array(np.finfo(np.float32).min, np.float32)))
    return graph.op("Unsqueeze", scaled, graph.const("axes12", np.array([1, 2], np.int64)))


def _layer(graph: _Graph, x: str, bias: str, prefix: str, shape: BertShape) -> str:
    """One post-norm transformer layer: self-attention, then the GELU feed-forward block."""
    head = shape.hidden // shape.heads
    split = graph.const(f"{prefix}.split", np.array([0, 0, shape.heads, head], np.int64))
    merge = graph.const(f"{prefix}.merge", np.array([0, 0, shape.hidden], np.int64))

    def heads(name: str, perm: list[int]) -> str:
        projected = graph.dense(x, f"{prefix}.attention.self.{name}")
        return graph.op("Transpose", graph.op("Reshape", projected, split), perm=perm)

    query, key, value = heads("query", [0, 2, 1, 3]), heads("key", [0, 2, 3, 1]), \
        heads("value", [0, 2, 1, 3])
    scale = graph.const(f"{prefix}.scale", np.array(1 / math.sqrt(head), np.float32))
    scores = graph.op("Add", graph.op("Mul", graph.op("MatMul", query, key), scale), bias)
    context = graph.op("MatMul", graph.op("Softmax", scores, axis=-1), value)
    context = graph.op("Reshape", graph.op("Transpose", context, perm=[0, 2, 1, 3]), merge)
    attended = graph.layer_norm(
        graph.op("Add", graph.dense(context, f"{prefix}.attention.output.dense"), x),
        f"{prefix}.attention.output.LayerNorm", shape.eps)
    inner = graph.dense(attended, f"{prefix}.intermediate.dense")
    gelu = _gelu(graph, inner, prefix)
    return graph.layer_norm(graph.op("Add", graph.dense(gelu, f"{prefix}.output.dense"), attended),
                            f"{prefix}.output.LayerNorm", shape.eps)


def _gelu(graph: _Graph, x: str, prefix: str) -> str:
    """The exact GELU, 0.5 * x * (1 + erf(x / sqrt 2)), as `hidden_act: gelu` means."""
    half = graph.const(f"{prefix}.half", np.array(0.5, np.float32))
    unit = graph.const(f"{prefix}.unit", np.array(1.0, np.float32))
    rsqrt2 = graph.const(f"{prefix}.rsqrt2", np.array(1 / math.sqrt(2), np.float32))
    erf = graph.op("Erf", graph.op("Mul", x, rsqrt2))
    return graph.op("Mul", graph.op("Mul", x, half), graph.op("Add", unit, erf))
