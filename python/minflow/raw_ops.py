"""The op functions under the ops' own names (MatMul, AddV2, ...; a
namespace's '>' as '_'), as TensorFlow's tf.raw_ops."""
