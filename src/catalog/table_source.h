// Everything a query can scan, in one include: the scan interface
// (TableSource, ScanPlan, ScanRequest: scan.h), pruning by statistics
// (scan_pruning.h), tables held in memory (memory_table.h), files as tables
// (file_table.h), the files a path or glob names (glob.h) and the conversion
// of file columns to engine types (type_conversion.h). New code includes the
// one it needs.
#pragma once

#include "catalog/file_table.h"
#include "catalog/glob.h"
#include "catalog/memory_table.h"
#include "catalog/scan.h"
#include "catalog/scan_pruning.h"
#include "catalog/type_conversion.h"
