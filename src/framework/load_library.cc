#include "minflow/framework/load_library.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_library.h"
#include "minflow/kernel_def.pb.h"
#include "minflow/op_def.pb.h"
#include "src/framework/kernel_staging.h"

namespace minflow {
namespace {

constexpr char kPluginInitSymbol[] = "MF_PluginInit";

// What a load left behind, kept so a second load of the same file returns
// it unchanged (see LoadOpLibrary's contract).
struct LoadedLibrary {
  Status status;
  OpList ops;
  KernelList kernels;
};

struct Loader {
  static Loader* Get() {
    // Leaked: libraries are never unloaded, and static destructors of
    // other objects may still run their code.
    static Loader* const loader = new Loader;
    return loader;
  }

  absl::Mutex mu;
  // By canonical path; only libraries that were dlopen()ed.
  absl::flat_hash_map<std::string, LoadedLibrary> loaded ABSL_GUARDED_BY(mu);
  CPluginInitializer c_plugin_init ABSL_GUARDED_BY(mu) = nullptr;
};

// ---------------------------------------------------------------------------
// Reading the ABI mark from the file, before dlopen() runs any of its code.

enum class SymbolSearch { kFound, kAbsent, kCannotTell };

// Reads `n` bytes at `offset` of a file of `size` bytes; false when out of
// range or unreadable.
bool ReadAt(std::ifstream& file, uint64_t size, uint64_t offset, void* out,
            uint64_t n) {
  if (offset > size || n > size - offset) return false;
  file.clear();
  file.seekg(static_cast<std::streamoff>(offset));
  file.read(static_cast<char*>(out), static_cast<std::streamsize>(n));
  return static_cast<uint64_t>(file.gcount()) == n;
}

// Looks `name` up among the dynamic symbols of the ELF file at `path` and
// reads the NUL-terminated string it defines (at most 256 bytes). Every
// offset is checked against the file: it may be anything. kCannotTell when
// the file is not a native ELF64 object with section headers, in which
// case dlopen() decides.
SymbolSearch FindStringSymbolInFile(const std::string& path, const char* name,
                                    std::string* value) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return SymbolSearch::kCannotTell;
  file.seekg(0, std::ios::end);
  const std::streamoff end = file.tellg();
  if (end < 0) return SymbolSearch::kCannotTell;
  const uint64_t size = static_cast<uint64_t>(end);

  Elf64_Ehdr header;
  if (!ReadAt(file, size, 0, &header, sizeof(header)) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_ident[EI_DATA] != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
                                      ? ELFDATA2LSB
                                      : ELFDATA2MSB) ||
      header.e_shentsize != sizeof(Elf64_Shdr) || header.e_shnum == 0) {
    return SymbolSearch::kCannotTell;
  }
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  if (!ReadAt(file, size, header.e_shoff, sections.data(),
              sections.size() * sizeof(Elf64_Shdr))) {
    return SymbolSearch::kCannotTell;
  }
  for (const Elf64_Shdr& dynsym : sections) {
    if (dynsym.sh_type != SHT_DYNSYM) continue;
    if (dynsym.sh_link >= sections.size() ||
        dynsym.sh_entsize != sizeof(Elf64_Sym)) {
      return SymbolSearch::kCannotTell;
    }
    const Elf64_Shdr& strtab_header = sections[dynsym.sh_link];
    if (strtab_header.sh_size > size || dynsym.sh_size > size) {
      return SymbolSearch::kCannotTell;
    }
    std::string strtab(strtab_header.sh_size, '\0');
    std::vector<Elf64_Sym> symbols(dynsym.sh_size / sizeof(Elf64_Sym));
    if (!ReadAt(file, size, strtab_header.sh_offset, strtab.data(),
                strtab.size()) ||
        !ReadAt(file, size, dynsym.sh_offset, symbols.data(),
                symbols.size() * sizeof(Elf64_Sym))) {
      return SymbolSearch::kCannotTell;
    }
    for (const Elf64_Sym& symbol : symbols) {
      if (symbol.st_name >= strtab.size() ||
          std::strcmp(strtab.c_str() + symbol.st_name, name) != 0 ||
          symbol.st_shndx == SHN_UNDEF) {
        continue;
      }
      if (symbol.st_shndx >= sections.size() || symbol.st_size > 256) {
        return SymbolSearch::kCannotTell;
      }
      const Elf64_Shdr& section = sections[symbol.st_shndx];
      if (section.sh_type == SHT_NOBITS || section.sh_size > size ||
          symbol.st_value < section.sh_addr ||
          symbol.st_value - section.sh_addr > section.sh_size ||
          symbol.st_size >
              section.sh_size - (symbol.st_value - section.sh_addr) ||
          section.sh_offset > size) {
        return SymbolSearch::kCannotTell;
      }
      std::string bytes(symbol.st_size, '\0');
      if (!ReadAt(file, size,
                  section.sh_offset + (symbol.st_value - section.sh_addr),
                  bytes.data(), bytes.size())) {
        return SymbolSearch::kCannotTell;
      }
      *value = bytes.substr(0, bytes.find('\0'));
      return SymbolSearch::kFound;
    }
    return SymbolSearch::kAbsent;
  }
  return SymbolSearch::kCannotTell;
}

Status CheckAbi(const std::string& library_abi) {
  if (library_abi == MINFLOW_OP_LIBRARY_ABI) return OkStatus();
  return errors::FailedPrecondition(
      "the library was built against minflow ABI '", library_abi,
      "', but this process runs minflow ABI '", MINFLOW_OP_LIBRARY_ABI,
      "'; rebuild it against this minflow (find_package(minflow) and "
      "minflow_add_op_library)");
}

// ---------------------------------------------------------------------------
// Loading.

// `name` when the library itself defines it: dlsym() also searches the
// library's dependencies, libminflow among them.
void* OwnSymbol(void* handle, const char* name) {
  void* symbol = dlsym(handle, name);
  if (symbol == nullptr) return nullptr;
  struct link_map* library = nullptr;
  struct link_map* owner = nullptr;
  Dl_info info;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &library) != 0 ||
      dladdr1(symbol, &info, reinterpret_cast<void**>(&owner),
              RTLD_DL_LINKMAP) == 0) {
    return nullptr;
  }
  return owner == library ? symbol : nullptr;
}

Status Canonicalize(const std::string& path, std::string* canonical) {
  struct stat st;
  if (path.empty() || stat(path.c_str(), &st) != 0) {
    const int error = path.empty() ? ENOENT : errno;
    if (error == ENOENT || error == ENOTDIR) {
      return errors::NotFound("no such file");
    }
    return errors::InvalidArgument(std::strerror(error));
  }
  if (!S_ISREG(st.st_mode)) {
    return errors::InvalidArgument("not a regular file");
  }
  std::unique_ptr<char, decltype(&std::free)> resolved(
      realpath(path.c_str(), nullptr), &std::free);
  if (resolved == nullptr) return errors::InvalidArgument(std::strerror(errno));
  *canonical = resolved.get();
  return OkStatus();
}

// Ends the registration brackets of a load that failed: the library's
// queued ops and staged kernels are dropped unseen.
void Abandon() {
  OpRegistry* registry = OpRegistry::Global();
  registry->ClearDeferredRegistrations();
  registry->ProcessRegistrations().IgnoreError();  // nothing left to fail
  internal::DiscardStagedKernelRegistrations();
}

// Processes the library's queued ops and staged kernels, all or none (see
// Note [Op registration] and Note [Staged kernel registrations]).
Status Commit(LoadedLibrary* library) {
  OpRegistry* registry = OpRegistry::Global();
  std::vector<Status> op_problems;
  std::vector<Status> kernel_problems;
  // Kernels for ops registered before the library are checked now: the
  // watcher below runs with the op registry locked and cannot look them up.
  for (const std::string& op : internal::StagedKernelOps()) {
    const OpRegistrationData* data = registry->LookUp(op);
    if (data == nullptr) continue;  // the library's own op, or checked lazily
    const Status s = internal::CheckStagedKernelRegistrations(data->op_def);
    if (!s.ok()) kernel_problems.push_back(s);
  }
  const bool must_fail = !kernel_problems.empty();
  bool vetoed = false;
  std::vector<OpDef> added;
  Status s = registry->SetWatcher([&](const Status& status,
                                      const OpDef& op_def) -> Status {
    if (!status.ok()) {
      op_problems.push_back(Status(
          status.code(),
          op_def.name().empty()
              ? std::string(status.message())
              : absl::StrCat("op '", op_def.name(), "': ", status.message())));
      return status;
    }
    const Status kernels = internal::CheckStagedKernelRegistrations(op_def);
    if (!kernels.ok()) {
      kernel_problems.push_back(kernels);
      return kernels;
    }
    // One refusal fails the whole batch (it is all or none).
    if (must_fail && !vetoed) {
      vetoed = true;
      return errors::FailedPrecondition(
          "left out: the library's kernel registrations are invalid");
    }
    added.push_back(op_def);
    return OkStatus();
  });
  if (!s.ok()) {
    Abandon();
    return s;
  }
  s = registry->ProcessRegistrations();
  registry->SetWatcher(nullptr).IgnoreError();  // removing never fails
  if (!s.ok() || must_fail) {
    internal::DiscardStagedKernelRegistrations();
    // The ops' problems first: a kernel may fail only because its op did.
    std::vector<Status> problems = std::move(op_problems);
    problems.insert(problems.end(), kernel_problems.begin(),
                    kernel_problems.end());
    if (problems.empty()) return s;
    std::vector<absl::string_view> messages;
    for (const Status& problem : problems) {
      messages.push_back(problem.message());
    }
    return Status(problems[0].code(), absl::StrJoin(messages, "; "));
  }
  for (OpDef& op_def : added) *library->ops.add_op() = std::move(op_def);
  library->kernels = internal::CommitStagedKernelRegistrations();
  return OkStatus();
}

// Loads the library at `path` (canonical). *opened tells whether dlopen()
// succeeded, after which the library stays mapped.
Status Load(const std::string& path, CPluginInitializer c_plugin_init,
            LoadedLibrary* library, bool* opened) {
  *opened = false;
  std::string abi;
  const SymbolSearch search =
      FindStringSymbolInFile(path, MINFLOW_OP_LIBRARY_ABI_SYMBOL, &abi);
  if (search == SymbolSearch::kFound) MF_RETURN_IF_ERROR(CheckAbi(abi));

  OpRegistry* registry = OpRegistry::Global();
  // Built-in registrations still queued are processed first, so that the
  // batch below holds only the library's.
  registry->LookUp("");
  registry->DeferRegistrations();
  internal::StageKernelRegistrations();
  OpRegistry::ScopedOwner owner(path);
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    Abandon();
    return errors::InvalidArgument(error != nullptr ? error : "dlopen failed");
  }
  *opened = true;

  Status s;
  if (search == SymbolSearch::kCannotTell) {
    const void* mark = OwnSymbol(handle, MINFLOW_OP_LIBRARY_ABI_SYMBOL);
    if (mark != nullptr) {
      const char* text = static_cast<const char*>(mark);
      s = CheckAbi(std::string(text, strnlen(text, 256)));
    }
  }
  void* plugin_init = s.ok() ? OwnSymbol(handle, kPluginInitSymbol) : nullptr;
  if (plugin_init != nullptr) {
    if (c_plugin_init == nullptr) {
      s = errors::Unimplemented(
          "the library is a C plugin (it exports ", kPluginInitSymbol,
          "), but this process has no C plugin support installed");
    } else {
      s = c_plugin_init(plugin_init, path);
      if (!s.ok()) s = errors::Prefix(s, kPluginInitSymbol, " failed: ");
    }
  }
  if (!s.ok()) {
    Abandon();
    return s;
  }
  return Commit(library);
}

}  // namespace

Status LoadOpLibrary(const std::string& path, OpList* ops_added,
                     KernelList* kernels_added) {
  // A library's static initialiser that loads another library would wait
  // for itself forever.
  thread_local bool loading = false;
  if (loading) {
    return errors::FailedPrecondition(
        "cannot load op library '", path,
        "' while another library loads (from its static initialisers or "
        "its MF_PluginInit)");
  }
  loading = true;
  struct Reset {
    ~Reset() { *flag = false; }
    bool* flag;
  } reset{&loading};
  Loader* loader = Loader::Get();
  absl::MutexLock lock(&loader->mu);
  std::string canonical;
  Status s = Canonicalize(path, &canonical);
  auto it = loader->loaded.end();
  if (s.ok()) it = loader->loaded.find(canonical);
  if (s.ok() && it == loader->loaded.end()) {
    LoadedLibrary library;
    bool opened = false;
    library.status = Load(canonical, loader->c_plugin_init, &library, &opened);
    s = library.status;
    if (opened)
      it = loader->loaded.emplace(canonical, std::move(library)).first;
  }
  if (it != loader->loaded.end()) s = it->second.status;
  if (!s.ok()) {
    return errors::Prefix(s, "cannot load op library '", path, "': ");
  }
  if (ops_added != nullptr) *ops_added = it->second.ops;
  if (kernels_added != nullptr) *kernels_added = it->second.kernels;
  return OkStatus();
}

void SetCPluginInitializer(CPluginInitializer init) {
  Loader* loader = Loader::Get();
  absl::MutexLock lock(&loader->mu);
  loader->c_plugin_init = init;
}

}  // namespace minflow
