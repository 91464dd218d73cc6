#!/usr/bin/env python3
"""Reference outputs for the Paddle models in this folder, computed with
NumPy alone: this script reads Paddle's tensor files itself and runs each
model's forward pass as the model's ops define it, so the expected outputs
owe nothing to Rill's kernels or its file readers.

Run from the repository root (numpy 2.x):

    python3 tests/data/paddle_models/reference.py

It rewrites the inputs (`*_input*.npy`) and the expected outputs
(`*_expected.npy`) beside the models.
"""

import os
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# VarType.Type codes of the element types these models use.
DTYPES = {2: np.int32, 3: np.int64, 5: np.float32, 6: np.float64}


def varint(buf, at):
    """A protobuf varint at `at`: (value, next offset)."""
    value = shift = 0
    while True:
        byte = buf[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def tensor_desc(buf):
    """VarType.TensorDesc: data_type = 1, repeated int64 dims = 2."""
    data_type, dims, at = None, [], 0
    while at < len(buf):
        key, at = varint(buf, at)
        field, wire = key >> 3, key & 7
        if field == 1 and wire == 0:
            data_type, at = varint(buf, at)
        elif field == 2 and wire == 0:
            d, at = varint(buf, at)
            dims.append(d - (1 << 64) if d >= 1 << 63 else d)
        elif field == 2 and wire == 2:  # packed
            size, at = varint(buf, at)
            end = at + size
            while at < end:
                d, at = varint(buf, at)
                dims.append(d - (1 << 64) if d >= 1 << 63 else d)
        else:
            raise ValueError(f"unexpected field {field} (wire type {wire})")
    return data_type, dims


def read_tensor(buf, at=0):
    """One LoDTensor record of Paddle's format at `at`: (array, next offset).

    uint32 version, uint64 LoD level count, per level a uint64 byte size and
    its uint64 offsets; uint32 tensor version, int32 TensorDesc size, the
    TensorDesc, then the elements, little-endian.
    """
    (version,) = struct.unpack_from("<I", buf, at)
    assert version == 0, version
    (levels,) = struct.unpack_from("<Q", buf, at + 4)
    at += 12
    for _ in range(levels):
        (size,) = struct.unpack_from("<Q", buf, at)
        at += 8 + size
    (tensor_version, desc_size) = struct.unpack_from("<Ii", buf, at)
    assert tensor_version == 0, tensor_version
    at += 8
    data_type, dims = tensor_desc(buf[at : at + desc_size])
    at += desc_size
    dtype = np.dtype(DTYPES[data_type]).newbyteorder("<")
    count = int(np.prod(dims)) if dims else 1
    data = np.frombuffer(buf, dtype=dtype, count=count, offset=at)
    return data.reshape(dims), at + count * dtype.itemsize


def read_file(path):
    with open(path, "rb") as f:
        buf = f.read()
    array, end = read_tensor(buf)
    assert end == len(buf), path
    return array


def save(name, array):
    np.save(os.path.join(HERE, name), array)


def recognize_digits_mlp():
    """fc(200, tanh) → fc(200, tanh) → fc(10, softmax) on a 1×1×28×28 image.

    Each fc is Fluid's mul (X flattened to [N, 784] by x_num_col_dims = 1)
    then elementwise_add of the bias along axis 1.
    """
    model = os.path.join(HERE, "recognize_digits_mlp")
    w = [read_file(os.path.join(model, f"fc_{i}.w_0")) for i in range(3)]
    b = [read_file(os.path.join(model, f"fc_{i}.b_0")) for i in range(3)]
    img = ((np.arange(784) % 17) / 16).astype(np.float32).reshape(1, 1, 28, 28)
    save("recognize_digits_mlp_input.npy", img)
    h = img.reshape(1, 784).astype(np.float64)
    h = np.tanh(h @ w[0] + b[0])
    h = np.tanh(h @ w[1] + b[1])
    logits = h @ w[2] + b[2]
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    save("recognize_digits_mlp_expected.npy", (e / e.sum(axis=1, keepdims=True)).astype(np.float32))


def gather_combined():
    """gather(input_data, index_data) along axis 0; the combined parameter
    file holds the one persistable variable, place_holder_weight."""
    model = os.path.join(HERE, "gather_combined")
    with open(os.path.join(model, "model.pdiparams"), "rb") as f:
        buf = f.read()
    weight, end = read_tensor(buf)
    assert end == len(buf) and weight.shape == (1,)
    data = (np.arange(16, dtype=np.float32).reshape(4, 4) * 0.5 - 1).astype(np.float32)
    index = np.array([2], dtype=np.int32)
    save("gather_combined_input_data.npy", data)
    save("gather_combined_index_data.npy", index)
    save("gather_combined_expected.npy", data[index])


if __name__ == "__main__":
    recognize_digits_mlp()
    gather_combined()
