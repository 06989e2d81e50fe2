; ModuleID = 'm'
