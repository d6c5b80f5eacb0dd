// LoadSavedModel: TensorFlow's loader semantics (tensorflow/cc/saved_model/
// loader.cc) over minflow's Session. See include/minflow/saved_model/
// loader.h for the steps.
#include "minflow/saved_model/loader.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "minflow/config.pb.h"
#include "minflow/core/file_util.h"
#include "minflow/core/proto_limits.h"
#include "minflow/graph/tensor_id.h"
#include "minflow/saved_model.pb.h"
#include "minflow/saved_model/constants.h"
#include "src/saved_model/loader_internal.h"

namespace minflow {
namespace {

namespace fs = std::filesystem;

bool IsRegularFile(const std::string& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

Status ParseBinarySavedModel(const std::string& path, const std::string& bytes,
                             SavedModel* saved_model) {
  bool parsed = false;
  if (bytes.size() <= static_cast<size_t>(INT32_MAX)) {
    google::protobuf::io::CodedInputStream input(
        reinterpret_cast<const uint8_t*>(bytes.data()),
        static_cast<int>(bytes.size()));
    input.SetRecursionLimit(kProtoRecursionLimit);
    parsed = saved_model->ParseFromCodedStream(&input) &&
             input.ConsumedEntireMessage();
  }
  if (parsed) return OkStatus();
  saved_model->Clear();
  if (ProtoNestsDeeperThan(bytes, *SavedModel::descriptor(),
                           kProtoRecursionLimit)) {
    return errors::InvalidArgument("Could not parse '", path,
                                   "' as a SavedModel: it nests messages ",
                                   "more than ", kProtoRecursionLimit,
                                   " levels deep, the most minflow reads");
  }
  return errors::InvalidArgument("Could not parse '", path,
                                 "' as a SavedModel (truncated or corrupt "
                                 "file?)");
}

Status ParseTextSavedModel(const std::string& path, const std::string& text,
                           SavedModel* saved_model) {
  google::protobuf::TextFormat::Parser parser;
  parser.SetRecursionLimit(kProtoRecursionLimit);
  struct Collector : google::protobuf::io::ErrorCollector {
    std::string errors;
    void AddError(int line, int column, const std::string& message) override {
      absl::StrAppend(&errors, errors.empty() ? "" : "; ", "line ", line + 1,
                      " column ", column + 1, ": ", message);
    }
  } collector;
  parser.RecordErrorsTo(&collector);
  if (text.size() > static_cast<size_t>(INT32_MAX)) {
    return errors::InvalidArgument("'", path, "' is too large to parse");
  }
  google::protobuf::io::ArrayInputStream stream(text.data(),
                                                static_cast<int>(text.size()));
  if (parser.Parse(&stream, saved_model)) return OkStatus();
  saved_model->Clear();
  return errors::InvalidArgument(
      "Could not parse '", path,
      "' as a text-format SavedModel: ", collector.errors);
}

std::string TagsString(
    const google::protobuf::RepeatedPtrField<std::string>& tags) {
  std::vector<std::string> sorted(tags.begin(), tags.end());
  std::sort(sorted.begin(), sorted.end());
  return absl::StrCat("[", absl::StrJoin(sorted, ", "), "]");
}

// The MetaGraph whose tags, as a set, are `tags`.
Status FindMetaGraphDef(const std::string& file,
                        const std::unordered_set<std::string>& tags,
                        SavedModel* saved_model, MetaGraphDef* out) {
  const std::set<std::string> wanted_set(tags.begin(), tags.end());
  std::vector<std::string> available;
  for (MetaGraphDef& meta_graph : *saved_model->mutable_meta_graphs()) {
    const auto& graph_tags = meta_graph.meta_info_def().tags();
    const std::set<std::string> graph_set(graph_tags.begin(), graph_tags.end());
    if (graph_set == wanted_set) {
      *out = std::move(meta_graph);
      return OkStatus();
    }
    available.push_back(TagsString(graph_tags));
  }
  return errors::NotFound(
      "MetaGraphDef associated with tags '", absl::StrJoin(wanted_set, ", "),
      "' could not be found in SavedModel '", file, "', with available tags '",
      available.empty() ? "(none: the file has no MetaGraph)"
                        : absl::StrJoin(available, ", "),
      "'");
}

// Any.UnpackTo would want minflow's type name; TensorFlow wrote its own
// ("type.googleapis.com/tensorflow.AssetFileDef"). The value is parsed with
// the depth limit like any other proto read from a file.
Status UnpackAssetFileDef(const google::protobuf::Any& any,
                          AssetFileDef* asset) {
  const std::string& url = any.type_url();
  const absl::string_view type =
      absl::string_view(url).substr(url.rfind('/') + 1);
  if (type != "tensorflow.AssetFileDef" && type != "minflow.AssetFileDef") {
    return errors::InvalidArgument("The ", kSavedModelAssetsKey,
                                   " collection holds a '", url,
                                   "' where an AssetFileDef was expected");
  }
  const std::string& bytes = any.value();
  google::protobuf::io::CodedInputStream input(
      reinterpret_cast<const uint8_t*>(bytes.data()),
      static_cast<int>(bytes.size()));
  input.SetRecursionLimit(kProtoRecursionLimit);
  if (!asset->ParseFromCodedStream(&input) || !input.ConsumedEntireMessage()) {
    return errors::InvalidArgument("An AssetFileDef of the ",
                                   kSavedModelAssetsKey,
                                   " collection does not parse");
  }
  return OkStatus();
}

// The assets' feeds: each AssetFileDef's tensor gets its file's absolute
// path under assets/. TF 1 MetaGraphs without asset_file_def keep them in
// the saved_model_assets collection.
Status AssetFeeds(const std::string& export_dir, const MetaGraphDef& meta_graph,
                  std::vector<std::pair<std::string, Tensor>>* feeds) {
  std::vector<AssetFileDef> assets(meta_graph.asset_file_def().begin(),
                                   meta_graph.asset_file_def().end());
  if (assets.empty()) {
    const auto it = meta_graph.collection_def().find(kSavedModelAssetsKey);
    if (it != meta_graph.collection_def().end()) {
      for (const auto& any : it->second.any_list().value()) {
        AssetFileDef asset;
        MF_RETURN_IF_ERROR(UnpackAssetFileDef(any, &asset));
        assets.push_back(std::move(asset));
      }
    }
  }
  const fs::path assets_dir =
      fs::absolute(fs::path(export_dir) / kSavedModelAssetsDirectory);
  for (const AssetFileDef& asset : assets) {
    if (asset.tensor_info().name().empty()) {
      return errors::InvalidArgument("The asset '", asset.filename(),
                                     "' names no tensor to feed its path to");
    }
    if (asset.filename().empty() || fs::path(asset.filename()).is_absolute()) {
      return errors::InvalidArgument(
          "The asset fed to '", asset.tensor_info().name(),
          "' must be a file name relative to assets/, but got '",
          asset.filename(), "'");
    }
    feeds->emplace_back(asset.tensor_info().name(),
                        Tensor((assets_dir / asset.filename()).string()));
  }
  return OkStatus();
}

// The init op's name, or "" when there is none.
Status GetInitOp(const MetaGraphDef& meta_graph, std::string* init_op) {
  init_op->clear();
  const auto sig =
      meta_graph.signature_def().find(kSavedModelInitOpSignatureKey);
  if (sig != meta_graph.signature_def().end()) {
    const auto out = sig->second.outputs().find(kSavedModelInitOpSignatureKey);
    if (out == sig->second.outputs().end() || out->second.name().empty()) {
      return errors::InvalidArgument("The ", kSavedModelInitOpSignatureKey,
                                     " signature must have an ",
                                     "output of that name naming the init op");
    }
    *init_op = out->second.name();
  } else {
    for (const char* key : {kSavedModelMainOpKey, kSavedModelLegacyInitOpKey}) {
      const auto it = meta_graph.collection_def().find(key);
      if (it == meta_graph.collection_def().end()) continue;
      const auto& ops = it->second.node_list().value();
      if (ops.size() != 1) {
        return errors::InvalidArgument("Expected exactly one main op in the ",
                                       key, " collection, but got ",
                                       ops.size());
      }
      *init_op = ops[0];
      break;
    }
  }
  // A target is a node; some writers name the op's first output instead.
  if (!init_op->empty()) {
    TensorId id;
    MF_RETURN_IF_ERROR(ParseTensorName(*init_op, &id));
    *init_op = id.node;
  }
  return OkStatus();
}

Status RunRestore(const RunOptions& run_options, const std::string& export_dir,
                  const std::string& file, const MetaGraphDef& meta_graph,
                  const std::vector<std::pair<std::string, Tensor>>& assets,
                  Session* session) {
  const std::string prefix =
      (fs::path(export_dir) / kSavedModelVariablesDirectory /
       kSavedModelVariablesFilename)
          .string();
  // As TensorFlow: a SavedModel without variables has nothing to restore.
  if (!IsRegularFile(prefix + ".index")) return OkStatus();
  const SaverDef& saver = meta_graph.saver_def();
  if (saver.restore_op_name().empty() || saver.filename_tensor_name().empty()) {
    return errors::InvalidArgument(
        file, ": '", prefix,
        ".index' exists, but the MetaGraph's SaverDef names no ",
        saver.restore_op_name().empty() ? "restore op" : "filename tensor",
        " to restore the variables with");
  }
  std::vector<std::pair<std::string, Tensor>> feeds = assets;
  feeds.emplace_back(saver.filename_tensor_name(), Tensor(prefix));
  std::vector<Tensor> outputs;
  return errors::Prefix(
      session->Run(run_options, feeds, {}, {saver.restore_op_name()}, &outputs,
                   nullptr),
      file, ": restoring the variables from '", prefix, "' with ",
      saver.restore_op_name(), ": ");
}

// Reads export_dir's saved_model.pb or .pbtxt into `*saved_model` and its
// path into `*file`.
Status ReadSavedModelFile(const std::string& export_dir,
                          SavedModel* saved_model, std::string* file) {
  std::error_code error;
  if (!fs::is_directory(export_dir, error)) {
    return errors::NotFound("SavedModel directory '", export_dir,
                            "' does not exist or is not a directory");
  }
  std::string bytes;
  *file = (fs::path(export_dir) / kSavedModelFilenamePb).string();
  if (IsRegularFile(*file)) {
    MF_RETURN_IF_ERROR(ReadFileToString(*file, &bytes));
    return ParseBinarySavedModel(*file, bytes, saved_model);
  }
  *file = (fs::path(export_dir) / kSavedModelFilenamePbTxt).string();
  if (IsRegularFile(*file)) {
    MF_RETURN_IF_ERROR(ReadFileToString(*file, &bytes));
    return ParseTextSavedModel(*file, bytes, saved_model);
  }
  return errors::NotFound("Could not find SavedModel .pb or .pbtxt at '",
                          export_dir, "': neither ", kSavedModelFilenamePb,
                          " nor ", kSavedModelFilenamePbTxt, " exists there");
}

}  // namespace

Status ReadSavedModel(const std::string& export_dir, SavedModel* saved_model) {
  std::string file;
  return ReadSavedModelFile(export_dir, saved_model, &file);
}

bool MaybeSavedModelDirectory(const std::string& export_dir) {
  return IsRegularFile(
             (fs::path(export_dir) / kSavedModelFilenamePb).string()) ||
         IsRegularFile(
             (fs::path(export_dir) / kSavedModelFilenamePbTxt).string());
}

namespace internal {

Status ReadMetaGraph(const std::string& export_dir,
                     const std::unordered_set<std::string>& tags,
                     MetaGraphDef* meta_graph, std::string* file) {
  SavedModel saved_model;
  MF_RETURN_IF_ERROR(ReadSavedModelFile(export_dir, &saved_model, file));
  return FindMetaGraphDef(*file, tags, &saved_model, meta_graph);
}

Status LoadMetaGraph(const SessionOptions& session_options,
                     const RunOptions& run_options,
                     const std::string& export_dir, const std::string& file,
                     MetaGraphDef meta_graph, SavedModelBundle* bundle) {
  std::vector<std::pair<std::string, Tensor>> assets;
  MF_RETURN_IF_ERROR(
      errors::Prefix(AssetFeeds(export_dir, meta_graph, &assets), file, ": "));
  std::string init_op;
  MF_RETURN_IF_ERROR(
      errors::Prefix(GetInitOp(meta_graph, &init_op), file, ": "));

  StatusOr<std::unique_ptr<Session>> session =
      Session::Create(meta_graph.graph_def(), session_options);
  if (!session.ok()) {
    return errors::Prefix(session.status(), file,
                          ": creating a session from the MetaGraph's graph: ");
  }
  // The restore and init graphs run once and are small: on the caller's
  // thread, they skip the hand-off to an inter-op thread (unless the caller
  // chose a pool).
  RunOptions once_options = run_options;
  if (once_options.inter_op_thread_pool() == 0) {
    once_options.set_inter_op_thread_pool(-1);
  }
  MF_RETURN_IF_ERROR(RunRestore(once_options, export_dir, file, meta_graph,
                                assets, session->get()));
  if (!init_op.empty()) {
    std::vector<Tensor> outputs;
    MF_RETURN_IF_ERROR(errors::Prefix(
        (*session)->Run(once_options, assets, {}, {init_op}, &outputs, nullptr),
        file, ": running the init op ", init_op, ": "));
  }
  bundle->session = *std::move(session);
  bundle->meta_graph_def = std::move(meta_graph);
  return OkStatus();
}

}  // namespace internal

Status LoadSavedModel(const SessionOptions& session_options,
                      const RunOptions& run_options,
                      const std::string& export_dir,
                      const std::unordered_set<std::string>& tags,
                      SavedModelBundle* bundle) {
  if (bundle == nullptr) {
    return errors::InvalidArgument("LoadSavedModel: bundle must not be null");
  }
  MetaGraphDef meta_graph;
  std::string file;
  MF_RETURN_IF_ERROR(
      internal::ReadMetaGraph(export_dir, tags, &meta_graph, &file));
  return internal::LoadMetaGraph(session_options, run_options, export_dir, file,
                                 std::move(meta_graph), bundle);
}

}  // namespace minflow
