// The names a SavedModel directory and its MetaGraphs use, as TensorFlow
// spells them (tensorflow/cc/saved_model/{constants,tag_constants,
// signature_constants}.h).
#pragma once

namespace minflow {

// Files and folders of a SavedModel directory.
inline constexpr char kSavedModelFilenamePb[] = "saved_model.pb";
inline constexpr char kSavedModelFilenamePbTxt[] = "saved_model.pbtxt";
inline constexpr char kSavedModelAssetsDirectory[] = "assets";
inline constexpr char kSavedModelAssetsExtraDirectory[] = "assets.extra";
inline constexpr char kSavedModelVariablesDirectory[] = "variables";
// The checkpoint prefix under variables/: variables/variables.index and
// variables/variables.data-*.
inline constexpr char kSavedModelVariablesFilename[] = "variables";

// Tags of MetaGraphs.
inline constexpr char kSavedModelTagServe[] = "serve";
inline constexpr char kSavedModelTagTrain[] = "train";
inline constexpr char kSavedModelTagGpu[] = "gpu";
inline constexpr char kSavedModelTagTpu[] = "tpu";

// The signature a server uses when a request names none.
inline constexpr char kDefaultServingSignatureDefKey[] = "serving_default";
inline constexpr char kPredictMethodName[] = "tensorflow/serving/predict";

// The init op: a SignatureDef under this key whose one output (under the
// same key) names the op (TF 2), or else one of the legacy collections,
// each a node_list of exactly one op name (TF 1).
inline constexpr char kSavedModelInitOpSignatureKey[] = "__saved_model_init_op";
inline constexpr char kSavedModelMainOpKey[] = "saved_model_main_op";
inline constexpr char kSavedModelLegacyInitOpKey[] = "legacy_init_op";
// Assets of TF 1 MetaGraphs without asset_file_def: an any_list of
// AssetFileDefs.
inline constexpr char kSavedModelAssetsKey[] = "saved_model_assets";

}  // namespace minflow
