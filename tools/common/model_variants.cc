#include "tools/common/model_variants.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "plugin/config.h"
#include "plugin/mjportal.h"

namespace mjportal::tools {
namespace {

struct SpecDeleter {
  void operator()(mjSpec* s) const { mj_deleteSpec(s); }
};
using SpecPtr = std::unique_ptr<mjSpec, SpecDeleter>;

// An mjVFS that frees itself.
class ScopedVfs {
 public:
  ScopedVfs() { mj_defaultVFS(&vfs_); }
  ~ScopedVfs() { mj_deleteVFS(&vfs_); }
  ScopedVfs(const ScopedVfs&) = delete;
  ScopedVfs& operator=(const ScopedVfs&) = delete;
  mjVFS* get() { return &vfs_; }

 private:
  mjVFS vfs_;
};

SpecPtr Parse(const std::string& path, const mjVFS* vfs, std::string* error) {
  char buffer[1024] = "";
  SpecPtr spec(mj_parseXML(path.c_str(), vfs, buffer, sizeof(buffer)));
  if (!spec) {
    *error = "cannot parse '" + path + "': " + buffer;
  }
  return spec;
}

ModelPtr Compile(mjSpec* spec, const mjVFS* vfs, const std::string& path, std::string* error) {
  ModelPtr model(mj_compile(spec, vfs));
  if (!model) {
    *error = "cannot compile '" + path + "': " + mjs_getError(spec);
  }
  return model;
}

// Every plugin instance in the spec that names the mjportal plugin.
std::vector<mjsPlugin*> MjportalInstances(mjSpec* spec) {
  std::vector<mjsPlugin*> found;
  for (mjsElement* el = mjs_firstElement(spec, mjOBJ_PLUGIN); el; el = mjs_nextElement(spec, el)) {
    mjsPlugin* plugin = mjs_asPlugin(el);
    if (plugin && std::strcmp(mjs_getString(plugin->plugin_name), MJPORTAL_PLUGIN_NAME) == 0) {
      found.push_back(plugin);
    }
  }
  return found;
}

bool ReadFile(const std::string& path, std::string* text, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot read '" + path + "'";
    return false;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  *text = buffer.str();
  return true;
}

// Position of the next opening tag `<name` (followed by white space, '>' or '/') at or after
// `from`, or npos.
size_t FindTag(const std::string& text, const char* name, size_t from) {
  const std::string open = std::string("<") + name;
  for (size_t at = text.find(open, from); at != std::string::npos; at = text.find(open, at + 1)) {
    const char next = at + open.size() < text.size() ? text[at + open.size()] : '\0';
    if (next == '>' || next == '/' || std::isspace(static_cast<unsigned char>(next))) {
      return at;
    }
  }
  return std::string::npos;
}

// Removes the <plugin plugin="mjportal.collision"> element (self-closing or with its instances)
// from the text. False when the text has none (declared in an included file).
bool RemoveMjportalElement(std::string* text) {
  for (size_t begin = FindTag(*text, "plugin", 0); begin != std::string::npos;
       begin = FindTag(*text, "plugin", begin + 1)) {
    const size_t tag_end = text->find('>', begin);
    if (tag_end == std::string::npos) {
      return false;
    }
    // The tag without white space must carry plugin="mjportal.collision".
    std::string tag;
    for (size_t i = begin; i < tag_end; ++i) {
      if (!std::isspace(static_cast<unsigned char>((*text)[i])))
        tag += (*text)[i];
    }
    if (tag.find("plugin=\"" MJPORTAL_PLUGIN_NAME "\"") == std::string::npos &&
        tag.find("plugin='" MJPORTAL_PLUGIN_NAME "'") == std::string::npos) {
      continue;
    }
    size_t end = tag_end + 1;
    if ((*text)[tag_end - 1] != '/') {
      const size_t close = text->find("</plugin>", tag_end);
      if (close == std::string::npos) {
        return false;
      }
      end = close + std::strlen("</plugin>");
    }
    text->erase(begin, end - begin);
    return true;
  }
  return false;
}

// Inserts an <extension> with one mjportal instance right after the <mujoco ...> opening tag.
bool InjectInstance(std::string* text, const PluginConfig& config) {
  const size_t root = FindTag(*text, "mujoco", 0);
  const size_t root_end = root == std::string::npos ? root : text->find('>', root);
  if (root_end == std::string::npos) {
    return false;
  }
  std::string snippet =
      "<extension><plugin plugin=\"" MJPORTAL_PLUGIN_NAME "\"><instance name=\"mjportal\">";
  for (const auto& [key, value] : config) {
    snippet += "<config key=\"" + key + "\" value=\"" + value + "\"/>";
  }
  snippet += "</instance></plugin></extension>";
  text->insert(root_end + 1, snippet);
  return true;
}

}  // namespace

ModelPtr LoadWithPlugin(const std::string& path, const PluginConfig& config, std::string* error) {
  std::string text;
  if (!ReadFile(path, &text, error)) {
    return nullptr;
  }
  SpecPtr original = Parse(path, nullptr, error);
  if (!original) {
    return nullptr;
  }

  // An instance the file declares: keep its keys (read back from a compile), drop its element.
  PluginConfig merged;
  std::vector<mjsPlugin*> instances = MjportalInstances(original.get());
  if (instances.size() > 1) {
    *error = "'" + path + "' declares more than one mjportal instance";
    return nullptr;
  }
  if (!instances.empty()) {
    ModelPtr declared = Compile(original.get(), nullptr, path, error);
    if (!declared) {
      return nullptr;
    }
    for (int i = 0; i < declared->nplugin; ++i) {
      for (const char* key : kConfigKeys) {
        const char* value = mj_getPluginConfig(declared.get(), i, key);
        if (value && value[0])
          merged[key] = value;
      }
    }
    if (!RemoveMjportalElement(&text)) {
      *error = "'" + path +
               "' declares its mjportal instance in an included file; edit its config "
               "there instead";
      return nullptr;
    }
  }
  for (const auto& [key, value] : config) {
    merged[key] = value;
  }
  if (!InjectInstance(&text, merged)) {
    *error = "'" + path + "' has no <mujoco> root element";
    return nullptr;
  }

  // Serve the edited text under the file's own path; everything else comes from disk.
  ScopedVfs vfs;
  if (mj_addBufferVFS(vfs.get(), path.c_str(), text.data(), static_cast<int>(text.size())) != 0) {
    *error = "cannot stage the edited model for '" + path + "'";
    return nullptr;
  }
  SpecPtr spec = Parse(path, vfs.get(), error);
  return spec ? Compile(spec.get(), vfs.get(), path, error) : nullptr;
}

ModelPtr LoadStock(const std::string& path, std::string* error) {
  SpecPtr spec = Parse(path, nullptr, error);
  if (!spec) {
    return nullptr;
  }
  for (mjsPlugin* instance : MjportalInstances(spec.get())) {
    mjs_delete(spec.get(), instance->element);
  }
  return Compile(spec.get(), nullptr, path, error);
}

}  // namespace mjportal::tools
