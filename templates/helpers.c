// Helpers of generated encoders, each emitted once per generated file when used. A piece starts
// with "//> name", optionally "needs" the pieces it uses; ${p} is the prefix, ${static} the
// linkage ("static inline": see STATIC in gen/lua/emit_c.lua).
//> meas
/* What a request needs, summed in one pass over the arguments: words for the array header,
 * bytes, and the caller's strings an iovec encoding points at instead of copying (those of at
 * least RG_IOV_COPY_MIN bytes, as rg_argv_encode_iov does). */
typedef struct ${p}_meas {
    size_t argc;
    size_t bytes;
    size_t views;
    size_t payload;
    bool bad;
} ${p}_meas;
//> meas_start needs meas
/* Starts measuring with the words and bytes every request of the command has. */
${static} void ${p}_meas_start(${p}_meas *m, size_t argc, size_t bytes) {
    *m = (${p}_meas){.argc = argc, .bytes = bytes};
}
//> meas_add needs meas
/* Adds to the size; a sum that would wrap (views may name the same bytes many times) makes the
 * request invalid instead. */
${static} void ${p}_meas_add(${p}_meas *m, size_t bytes) {
    m->bad |= bytes > SIZE_MAX - m->bytes;
    m->bytes += bytes;
}
//> meas_lit needs meas meas_add
${static} void ${p}_meas_lit(${p}_meas *m, size_t argc, size_t bytes) {
    m->argc += argc;
    ${p}_meas_add(m, bytes);
}
//> meas_view needs meas meas_add
${static} void ${p}_meas_view(${p}_meas *m, rg_view v) {
    m->argc++;
    /* No object is this long; the check keeps rg_bulk_size from wrapping. */
    m->bad |= v.len > SIZE_MAX / 2;
    ${p}_meas_add(m, rg_bulk_size(v.len));
    if (v.len < RG_IOV_COPY_MIN) return;
    m->views++;
    m->payload += v.len;
}
//> meas_view_max needs meas_view
/* A string the spec bounds with max_len: longer ones are rejected, so the MAX_SIZE macros hold. */
${static} void ${p}_meas_view_max(${p}_meas *m, rg_view v, size_t max_len) {
    if (v.len > max_len) m->bad = true;
    ${p}_meas_view(m, v);
}
//> meas_i64 needs meas_add
${static} void ${p}_meas_i64(${p}_meas *m, int64_t v) {
    m->argc++;
    ${p}_meas_add(m, rg_bulk_i64_size(v));
}
//> meas_double needs meas_add
${static} void ${p}_meas_double(${p}_meas *m, double v) {
    m->argc++;
    ${p}_meas_add(m, rg_bulk_double_size(v));
}
//> meas_bulk needs meas_lit
/* A constant bulk chosen at run time; a NULL one is a choice outside its enum. */
${static} void ${p}_meas_bulk(${p}_meas *m, rg_view bulk) {
    if (!bulk.ptr) m->bad = true;
    ${p}_meas_lit(m, 1, bulk.len);
}
//> meas_total needs meas
/* The request size, or 0 when an argument was invalid. */
${static} size_t ${p}_meas_total(const ${p}_meas *m) {
    return m->bad ? 0 : m->bytes;
}
//> meas_total_array needs meas
/* As meas_total, for commands whose word count, and so array header, varies. */
${static} size_t ${p}_meas_total_array(const ${p}_meas *m) {
    const size_t header = rg_array_header_size(m->argc);
    return m->bad || header > SIZE_MAX - m->bytes ? 0 : m->bytes + header;
}
//> iovw
/* An iovec encoding in progress: the entries so far and where the scratch bytes not yet in an
 * entry begin. Encoders write into one buffer when it is NULL. */
typedef struct ${p}_iovw {
    rg_iov *iov;
    size_t n;
    const char *seg;
} ${p}_iovw;
//> put_view_ref needs iovw
/* A caller's string referenced in place by an iovec entry, between the scratch bytes before it
 * (its header) and after it (its CRLF). */
${static} char *${p}_put_view_ref(char *dst, ${p}_iovw *w, rg_view v) {
    dst = rg_put_bulk_header(dst, v.len);
    w->iov[w->n++] = (rg_iov){.base = w->seg, .len = (size_t)(dst - w->seg)};
    w->iov[w->n++] = (rg_iov){.base = v.ptr, .len = v.len};
    w->seg = dst;
    return rg_put_raw(dst, "\r\n", 2);
}
//> put_view needs put_view_ref
/* A caller's string as a bulk: copied, or with an iovec writer and at least RG_IOV_COPY_MIN bytes,
 * referenced. Inline, so that encoding into one buffer (w == NULL) is the bulk write alone. */
${static} char *${p}_put_view(char *dst, ${p}_iovw *w, rg_view v) {
    if (!w || v.len < RG_IOV_COPY_MIN) return rg_put_bulk(dst, v.ptr, v.len);
    return ${p}_put_view_ref(dst, w, v);
}
//> put_bulk
${static} char *${p}_put_bulk(char *dst, rg_view bulk) {
    return rg_put_raw(dst, bulk.ptr, bulk.len);
}
//> iov_fits needs meas
/* Whether a measured request (size n, 0 when invalid) fits the caller's iovec and scratch. */
${static} bool ${p}_iov_fits(const ${p}_meas *m, size_t n, size_t iov_cap, size_t scratch_cap) {
    return n != 0 && 2 * m->views + 1 <= iov_cap && n - m->payload <= scratch_cap;
}
//> iov_finish needs iovw meas
/* Closes the last scratch segment; returns the number of iovec entries. */
${static} size_t ${p}_iov_finish(${p}_iovw *w, const char *end, const ${p}_meas *m) {
    w->iov[w->n++] = (rg_iov){.base = w->seg, .len = (size_t)(end - w->seg)};
    assert(w->n == 2 * m->views + 1);
    (void)m;
    return w->n;
}
