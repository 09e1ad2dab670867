// Environment lookup and the per-user directories, injectable so tests never touch the real home directory.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace saguaro::handoff {

// Returns the variable's value, or nullopt when unset or empty.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

EnvLookup process_environment();

// $XDG_CONFIG_HOME/saguaro, else $HOME/.config/saguaro. Throws HandoffError when neither variable is set.
std::string saguaro_config_dir(const EnvLookup& env);
// $XDG_STATE_HOME/saguaro, else $HOME/.local/state/saguaro.
std::string saguaro_state_dir(const EnvLookup& env);

// mkdir -p with mode 0700 for the directories it creates. Throws HandoffError naming the directory.
void make_private_dirs(const std::string& dir);

}  // namespace saguaro::handoff
