// Warnings that do not stop a statement (PostgreSQL's WARNING), e.g. Arrow
// min/max statistics that are malformed and so are not used. The CLI prints
// them on stderr ("WARNING:  ..."), a server logs them.
//
// Thread-safety: EmitWarning may be called from any thread.
#pragma once

#include <functional>
#include <string>

namespace quiver {

using WarningHandler = std::function<void(const std::string& message)>;

// Replaces the handler (null restores the default, stderr).
void SetWarningHandler(WarningHandler handler);
void EmitWarning(const std::string& message);

}  // namespace quiver
