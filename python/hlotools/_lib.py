"""Loading libhlo.so and the ctypes view of its public C API (include/hlo/*.h).

Only functions declared in the public headers are used.  The structures
mirrored here are the public ones the package reads (diagnostics, buffers,
runtime values, shapes, indexing maps) or passes in (option structs); a
structure read only through its leading fields mirrors just those fields and
is never allocated from Python."""
import ctypes
import ctypes.util
import os

# ---- finding the library ---------------------------------------------------
_HERE = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    env = os.environ.get("HLO_LIBRARY")
    if env:
        yield env  # an explicit choice: no fallback when it fails
        return
    try:
        from . import _config  # written by `make install`
        if getattr(_config, "LIBRARY", None):
            yield _config.LIBRARY
    except ImportError:
        pass
    for name in ("libhlo.so.0", "libhlo.so"):  # bundled by `pip install ./python`
        p = os.path.join(_HERE, name)
        if os.path.exists(p):
            yield p
    # in place: PYTHONPATH=python next to a built tree
    root = os.path.dirname(os.path.dirname(_HERE))
    for build in (os.environ.get("BUILD", "build"), "build"):
        p = os.path.join(root, build, "lib", "libhlo.so")
        if os.path.exists(p):
            yield p
    found = ctypes.util.find_library("hlo")
    if found:
        yield found
    yield "libhlo.so.0"


def _load():
    errors = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            errors.append("%s: %s" % (path, e))
    raise ImportError("hlotools: cannot load libhlo.so (set HLO_LIBRARY to its path):\n  " +
                      "\n  ".join(errors))


lib, LIBRARY_PATH = _load()

# ---- structures ------------------------------------------------------------
c_int, c_bool, c_size_t, c_char_p, c_void_p = (ctypes.c_int, ctypes.c_bool, ctypes.c_size_t,
                                               ctypes.c_char_p, ctypes.c_void_p)
c_int64, c_uint64, c_uint32, c_double = (ctypes.c_int64, ctypes.c_uint64, ctypes.c_uint32,
                                         ctypes.c_double)
P = ctypes.POINTER


class Arena(ctypes.Structure):  # hlo_arena
    _fields_ = [("head", c_void_p), ("alloc", c_void_p), ("cur", c_void_p), ("lim", c_void_p),
                ("bytes_reserved", c_size_t), ("bytes_retired", c_size_t)]


class Buf(ctypes.Structure):  # hlo_buf
    _fields_ = [("data", c_void_p), ("len", c_size_t), ("cap", c_size_t), ("failed", c_bool),
                ("alloc", c_void_p)]


class Src(ctypes.Structure):  # hlo_src
    _fields_ = [("name", c_char_p), ("text", c_char_p), ("len", c_size_t)]


class Loc(ctypes.Structure):  # hlo_loc
    _fields_ = [("line", c_uint32), ("col", c_uint32)]


class Diag(ctypes.Structure):  # hlo_diag
    _fields_ = [("sev", c_int), ("src", P(Src)), ("off", c_size_t), ("msg", c_char_p)]


class Diags(ctypes.Structure):  # hlo_diags
    _fields_ = [("v", P(Diag)), ("n", c_int), ("cap", c_int), ("nerrors", c_int),
                ("max_errors", c_int), ("oom", c_bool), ("alloc", c_void_p)]


class ParseOptions(ctypes.Structure):  # hlo_parse_options
    _fields_ = [("max_depth", c_int), ("keep_layouts", c_bool)]


class PrintOptions(ctypes.Structure):  # hlo_print_options
    _fields_ = [("operand_shapes", c_bool), ("short_form", c_bool), ("elide_constants", c_bool),
                ("shortest_floats", c_bool), ("no_layouts", c_bool)]


class VerifyOptions(ctypes.Structure):  # hlo_verify_options, field for field
    _fields_ = [("layout_sensitive", c_bool), ("allow_mixed_precision", c_bool),
                ("allow_unbounded_dynamism", c_bool), ("replica_count", c_int64),
                ("num_partitions", c_int64), ("verify_broadcast_dimensions_order", c_bool),
                ("verify_reshape_is_bitcast", c_bool), ("verify_no_host_memory_space", c_bool),
                ("verify_instruction_name_unchanged", c_bool),
                ("verify_call_nested_computation_thread_name", c_bool),
                ("allow_bitcast_to_have_different_size", c_bool),
                ("no_verify_sharding_device_numbers", c_bool), ("no_verify_unique_channel_ids", c_bool),
                ("no_verify_s4u4_usage", c_bool), ("verify_no_collective_deadlocks", c_bool),
                ("no_check_replica_groups", c_bool)]


class ExecOptions(ctypes.Structure):  # hlo_exec_options, field for field
    _fields_ = [("reference", c_bool), ("isa", c_int), ("rng_seed", c_uint64), ("max_while_iters", c_int64),
                ("threads", c_int), ("profile", c_bool), ("check_fast", c_bool), ("src", P(Src)),
                ("ccalls", c_void_p), ("nccalls", c_int), ("partition_id", c_int64),
                ("comm", c_void_p), ("device", c_int), ("allow_mixed_precision", c_bool)]


class CommOptions(ctypes.Structure):  # hlo_comm_options
    _fields_ = [("replicas", c_int), ("partitions", c_int), ("assignment", P(c_int)),
                ("timeout_seconds", ctypes.c_double)]


class MemPeak(ctypes.Structure):  # hlo_mem_peak
    _fields_ = [("peak", ctypes.c_double), ("at", c_void_p), ("callee_bytes", ctypes.c_double),
                ("nlive", c_int), ("live", c_void_p), ("param_bytes", ctypes.c_double),
                ("output_bytes", ctypes.c_double), ("constant_bytes", ctypes.c_double),
                ("scheduled", c_bool)]


class StatsOptions(ctypes.Structure):  # hlo_stats_options
    _fields_ = [("format", c_int), ("top", c_int), ("peak_gflops", ctypes.c_double),
                ("peak_gbps", ctypes.c_double), ("machine", c_char_p)]


class FuseOptions(ctypes.Structure):  # hlo_fuse_options
    _fields_ = [("kinds", ctypes.c_uint), ("max_size", c_int), ("max_outputs", c_int)]


class JsonOptions(ctypes.Structure):  # hlo_json_options
    _fields_ = [("pretty", c_bool)]


class JsonGraphOptions(ctypes.Structure):  # hlo_json_graph_options
    _fields_ = [("computation", c_char_p), ("pretty", c_bool)]


class DotOptions(ctypes.Structure):  # hlo_dot_options
    _fields_ = [("computation", c_char_p), ("around", c_char_p), ("radius", c_int),
                ("max_nodes", c_int), ("expand_fusions", c_bool), ("expand_bodies", c_bool)]


class Shape(ctypes.Structure):  # hlo_shape
    pass


Shape._fields_ = [("type", c_int), ("rank", c_int), ("dims", P(c_int64)), ("dynamic", P(c_bool)),
                  ("layout", c_void_p), ("ntuple", c_int), ("tuple", P(Shape)), ("buffer", c_bool)]


class Val(ctypes.Structure):  # hlo_val
    pass


Val._fields_ = [("refs", c_int), ("shape", P(Shape)), ("nelems", c_int64), ("nbytes", c_size_t),
                ("data", c_void_p), ("ntuple", c_int), ("tuple", P(P(Val))), ("cap", c_size_t),
                ("borrowed", c_bool), ("dims", P(c_int64))]


class ModuleHead(ctypes.Structure):  # leading fields of hlo_module
    _fields_ = [("arena", Arena), ("name", c_char_p), ("has_header", c_bool), ("nattrs", c_int),
                ("attrs", c_void_p), ("ncomps", c_int), ("comps", P(c_void_p)),
                ("entry", c_void_p)]


class ComputationHead(ctypes.Structure):  # leading fields of hlo_computation
    _fields_ = [("name", c_char_p), ("off", c_size_t), ("is_entry", c_bool), ("is_fused", c_bool),
                ("has_signature", c_bool), ("ninstrs", c_int), ("instrs", P(c_void_p))]


class InstructionHead(ctypes.Structure):  # leading fields of hlo_instruction
    _fields_ = [("op", c_int), ("id", c_int), ("noperands", c_int), ("nusers", c_int),
                ("ncontrol", c_int), ("ncalled", c_int), ("nattrs", c_int),
                ("shape_omitted", c_bool), ("name", c_char_p), ("shape", Shape)]


class ImapCtx(ctypes.Structure):  # imap_ctx
    _fields_ = [("arena", Arena), ("alloc", c_void_p), ("table", c_void_p), ("cap", c_size_t),
                ("count", c_size_t), ("failed", c_bool), ("overflow", c_bool), ("xla", c_int)]


class Interval(ctypes.Structure):  # imap_interval
    _fields_ = [("lo", c_int64), ("hi", c_int64)]


class ImapMap(ctypes.Structure):  # imap_map
    _fields_ = [("state", c_int), ("ndims", c_int), ("nsyms", c_int), ("nrts", c_int),
                ("nresults", c_int), ("ncons", c_int), ("capcons", c_int),
                ("dims", P(Interval)), ("syms", P(Interval)), ("rts", P(Interval)),
                ("results", P(c_void_p)), ("cons", c_void_p), ("rtvars", c_void_p),
                ("replica", c_void_p), ("as_built", c_bool), ("names", P(c_char_p)),
                ("written", c_void_p)]


class ImapSet(ctypes.Structure):  # imap_set
    _fields_ = [("n", c_int), ("cap", c_int), ("v", P(P(ImapMap)))]


class ImapIndexing(ctypes.Structure):  # imap_indexing
    _fields_ = [("n", c_int), ("sets", P(ImapSet))]


# ---- functions ---------------------------------------------------------------
def _fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_ptr = c_void_p
hlo_diags_init = _fn("hlo_diags_init", None, P(Diags), _ptr)
hlo_diags_release = _fn("hlo_diags_release", None, P(Diags))
hlo_src_loc = _fn("hlo_src_loc", Loc, P(Src), c_size_t)
hlo_buf_init = _fn("hlo_buf_init", None, P(Buf), _ptr)
hlo_buf_release = _fn("hlo_buf_release", None, P(Buf))
hlo_module_chunk_end = _fn("hlo_module_chunk_end", c_size_t, P(Src), c_size_t, P(c_size_t))
hlo_chunk_is_blank = _fn("hlo_chunk_is_blank", c_bool, P(Src), c_size_t, c_size_t)
hlo_parse_module = _fn("hlo_parse_module", P(ModuleHead), P(Src), c_size_t, c_size_t, _ptr,
                       P(Diags), P(ParseOptions))
hlo_module_free = _fn("hlo_module_free", None, P(ModuleHead))
hlo_module_find_computation = _fn("hlo_module_find_computation", _ptr, P(ModuleHead), c_char_p)
hlo_computation_find = _fn("hlo_computation_find", _ptr, _ptr, c_char_p)
hlo_print_module = _fn("hlo_print_module", c_int, P(Buf), P(ModuleHead), P(PrintOptions))
hlo_shape_fill_omitted = _fn("hlo_shape_fill_omitted", c_int, P(ModuleHead), P(Diags), P(Src))
hlo_module_fill_elided_constants = _fn("hlo_module_fill_elided_constants", c_int, P(ModuleHead))
hlo_shape_infer_module = _fn("hlo_shape_infer_module", c_int, P(ModuleHead), P(Diags), P(Src),
                             P(c_int))
hlo_verify_module = _fn("hlo_verify_module", c_int, P(ModuleHead), P(VerifyOptions), P(Diags),
                        P(Src))
hlo_type_name = _fn("hlo_type_name", c_char_p, c_int)
hlo_fuse_module = _fn("hlo_fuse_module", c_int, P(ModuleHead), P(FuseOptions), _ptr, P(Diags))
hlo_fuse_for_run = _fn("hlo_fuse_for_run", c_int, P(ModuleHead), P(Diags))
hlo_json_write = _fn("hlo_json_write", c_int, P(Buf), P(P(ModuleHead)), c_int, P(JsonOptions))
hlo_json_graph_write = _fn("hlo_json_graph_write", c_int, P(Buf), P(ModuleHead),
                           P(JsonGraphOptions), P(Diags))
hlo_dot_select = _fn("hlo_dot_select", _ptr, P(ModuleHead), P(DotOptions), _ptr, P(Diags))
hlo_dot_graph_free = _fn("hlo_dot_graph_free", None, _ptr)
hlo_dot_build = _fn("hlo_dot_build", _ptr, _ptr, P(Diags))
hlo_dot_render = _fn("hlo_dot_render", c_int, _ptr, c_char_p, P(Buf), P(Diags))
hlo_dot_html = _fn("hlo_dot_html", c_int, P(Buf), _ptr, c_char_p, c_size_t, c_char_p)
hlo_exec_new = _fn("hlo_exec_new", _ptr, P(ModuleHead), P(ExecOptions), _ptr, P(Diags))
hlo_exec_free = _fn("hlo_exec_free", None, _ptr)
hlo_exec_run = _fn("hlo_exec_run", c_int, _ptr, P(P(Val)), c_int, P(P(Val)))
hlo_exec_nparams = _fn("hlo_exec_nparams", c_int, _ptr)
hlo_exec_param_shape = _fn("hlo_exec_param_shape", P(Shape), _ptr, c_int)
hlo_val_borrow = _fn("hlo_val_borrow", P(Val), _ptr, P(Shape), c_void_p)
hlo_val_new = _fn("hlo_val_new", P(Val), _ptr, P(Shape))
hlo_val_ref = _fn("hlo_val_ref", P(Val), P(Val))
hlo_val_release = _fn("hlo_val_release", None, _ptr, P(Val))
hlo_arena_init = _fn("hlo_arena_init", None, P(Arena), _ptr)
hlo_arena_release = _fn("hlo_arena_release", None, P(Arena))
hlo_cost_analyze = _fn("hlo_cost_analyze", _ptr, P(ModuleHead), _ptr, P(Diags))
hlo_cost_analysis_free = _fn("hlo_cost_analysis_free", None, _ptr)
hlo_mem_peak_compute = _fn("hlo_mem_peak_compute", c_int, P(ModuleHead), P(Arena), P(MemPeak), P(Diags))
hlo_stats_render = _fn("hlo_stats_render", c_int, P(Buf), P(ModuleHead), _ptr, P(MemPeak),
                       P(StatsOptions))
HLO_STATS_JSON = 1
hlo_module_device_counts = _fn("hlo_module_device_counts", c_int, P(ModuleHead), P(c_int), P(c_int),
                              P(c_bool), P(Diags))
hlo_comm_new = _fn("hlo_comm_new", _ptr, P(CommOptions), _ptr, P(Diags))
hlo_comm_free = _fn("hlo_comm_free", None, _ptr)
hlo_devices_new = _fn("hlo_devices_new", _ptr, P(ModuleHead), P(ExecOptions), _ptr, _ptr, P(Diags))
hlo_devices_free = _fn("hlo_devices_free", None, _ptr)
hlo_devices_count = _fn("hlo_devices_count", c_int, _ptr)
hlo_devices_exec = _fn("hlo_devices_exec", _ptr, _ptr, c_int)
hlo_devices_run = _fn("hlo_devices_run", c_int, _ptr, P(P(P(Val))), c_int, P(P(Val)))
imap_ctx_init = _fn("imap_ctx_init", None, P(ImapCtx), _ptr)
imap_ctx_release = _fn("imap_ctx_release", None, P(ImapCtx))
imap_output_to_input = _fn("imap_output_to_input", c_int, P(ImapCtx), _ptr, c_int,
                           P(ImapIndexing), P(Diags))
imap_input_to_output = _fn("imap_input_to_output", c_int, P(ImapCtx), _ptr, c_int,
                           P(ImapIndexing), P(Diags))
imap_use_physical_layout = _fn("imap_use_physical_layout", c_int, P(ImapCtx), _ptr, c_bool,
                               c_int, P(ImapIndexing), P(Diags))
imap_map_print = _fn("imap_map_print", None, P(Buf), P(ImapMap))
imap_indexing_print = _fn("imap_indexing_print", None, P(Buf), P(ImapIndexing), c_char_p)
imap_eval = _fn("imap_eval", c_bool, c_void_p, P(c_int64), P(c_int64), P(c_int64), P(c_int64))

HLO_OK = 0
SEVERITIES = ("error", "warning", "note")
IMAP_STATES = ("defined", "undefined", "known empty")


def buf_text(b):
    """The contents of an hlo_buf as str (it is not released)."""
    if not b.data or not b.len:
        return ""
    return ctypes.string_at(b.data, b.len).decode("utf-8", "replace")


def buf_bytes(b):
    if not b.data or not b.len:
        return b""
    return ctypes.string_at(b.data, b.len)


# Graphviz graphs from hlo_dot_build are closed with cgraph's agclose (the
# contract of include/hlo/hlo_dot.h); libhlo.so links libcgraph.
def _agclose():
    for name in ("libcgraph.so.6", ctypes.util.find_library("cgraph")):
        if not name:
            continue
        try:
            f = ctypes.CDLL(name).agclose
            f.restype = c_int
            f.argtypes = [c_void_p]
            return f
        except (OSError, AttributeError):
            continue
    return None


agclose = _agclose()
