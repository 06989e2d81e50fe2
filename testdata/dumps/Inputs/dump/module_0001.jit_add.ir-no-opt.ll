; ModuleID = '__compute_module'
source_filename = "__compute_module"
