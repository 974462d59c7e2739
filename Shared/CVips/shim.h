// libvips (LGPL-2.1+) from Debian's libvips-dev: decodes, shrinks and re-encodes uploaded images.
// Its calls take options as NULL-terminated variadic lists, which Swift cannot make, so each one
// Melon uses is wrapped here with its options fixed.
#include <vips/vips.h>

/// The image formats Melon writes.
typedef enum { MELON_VIPS_JPEG, MELON_VIPS_PNG, MELON_VIPS_WEBP } melon_vips_format;

/// Starts libvips for the process (once) with every loader blocked except JPEG, PNG, WebP and
/// HEIF, so that no other decoder (ImageMagick, PDF, SVG, TIFF...) ever sees an upload, and with
/// no operation cache (each upload is decoded once; a cache could answer for freed bytes).
static inline int melon_vips_start(void) {
    if (VIPS_INIT("melon")) return -1;
    vips_cache_set_max(0);
    vips_block_untrusted_set(TRUE);
    vips_operation_block_set("VipsForeignLoad", TRUE);
    vips_operation_block_set("VipsForeignLoadJpeg", FALSE);
    vips_operation_block_set("VipsForeignLoadPng", FALSE);
    vips_operation_block_set("VipsForeignLoadWebp", FALSE);
    vips_operation_block_set("VipsForeignLoadHeif", FALSE);
    return 0;
}

/// The image's header only (no pixels are decoded yet): failing on the first decoder warning.
static inline VipsImage *melon_vips_header(const void *bytes, size_t length) {
    return vips_image_new_from_buffer(bytes, length, "", "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR, NULL);
}

/// The file decoded and shrunk (never enlarged) to fit `side`×`side`, turned upright by its
/// orientation tag, in memory (it is read twice: saved, and shrunk again for the thumbnail). With
/// `srgb` (the file has an ICC profile, which will not be kept), its colours are turned into sRGB,
/// what an image without a profile is taken to be. An HEIF file's main image is decoded, never the
/// thumbnail it may embed (which the header checks did not see). (8.14's thumbnail ignores its
/// fail_on option; the load option string does not.)
static inline VipsImage *melon_vips_fit_buffer(const void *bytes, size_t length, int side, int heif, int srgb) {
    VipsImage *out = NULL;
    const char *profile = srgb ? "srgb" : NULL;  // NULL: no colour conversion
    if (heif) {
        VipsImage *image = NULL;
        if (vips_heifload_buffer((void *)bytes, length, &image, "thumbnail", FALSE, "fail_on", VIPS_FAIL_ON_ERROR, NULL)) return NULL;
        int failed = vips_thumbnail_image(image, &out, side, "height", side, "size", VIPS_SIZE_DOWN, "export_profile", profile, NULL);
        g_object_unref(image);
        if (failed) return NULL;
    } else if (vips_thumbnail_buffer((void *)bytes, length, &out, side, "height", side, "size", VIPS_SIZE_DOWN,
                                     "option_string", "fail-on=error", "export_profile", profile, NULL)) {
        return NULL;
    }
    VipsImage *memory = vips_image_copy_memory(out);
    g_object_unref(out);
    return memory;
}

/// The bytes one decoded pixel takes (bands × sample size): with the pixel count, what a decoder
/// may need in memory.
static inline int melon_vips_pixel_bytes(VipsImage *image) {
    return vips_image_get_bands(image) * (int)vips_format_sizeof(vips_image_get_format(image));
}

/// `image` shrunk (never enlarged) to fit `side`×`side`.
static inline VipsImage *melon_vips_fit(VipsImage *image, int side) {
    VipsImage *out = NULL;
    if (vips_thumbnail_image(image, &out, side, "height", side, "size", VIPS_SIZE_DOWN, NULL)) return NULL;
    return out;
}

/// A copy of `image` without any metadata: no EXIF (GPS position, camera, time), XMP, IPTC,
/// comments or ICC profile. (8.14's WebP writer ignores `strip`, so the fields go before saving;
/// it then writes libexif's default EXIF, made afresh: resolution, size, version.)
static inline VipsImage *melon_vips_bare(VipsImage *image) {
    VipsImage *copy = NULL;
    if (vips_copy(image, &copy, NULL)) return NULL;
    gchar **fields = vips_image_get_fields(copy);
    for (gchar **field = fields; *field; field++) vips_image_remove(copy, *field);
    g_strfreev(fields);
    return copy;
}

/// `image` encoded as `format` without metadata; the bytes are freed with `melon_vips_free`.
static inline int melon_vips_save(VipsImage *image, melon_vips_format format, void **bytes, size_t *length) {
    switch (format) {
    case MELON_VIPS_JPEG: return vips_jpegsave_buffer(image, bytes, length, "Q", 85, "strip", TRUE, "optimize_coding", TRUE, NULL);
    case MELON_VIPS_PNG: return vips_pngsave_buffer(image, bytes, length, "compression", 6, "strip", TRUE, NULL);
    case MELON_VIPS_WEBP: return vips_webpsave_buffer(image, bytes, length, "Q", 80, "strip", TRUE, NULL);
    }
    return -1;
}

/// A black `width`×`height` RGB image: tests make their large uploads with it.
static inline VipsImage *melon_vips_blank(int width, int height) {
    VipsImage *out = NULL;
    return vips_black(&out, width, height, "bands", 3, NULL) ? NULL : out;
}

/// A `width`×`height` RGB image of noise around a gradient (photo-like to the encoders): the media
/// benchmark makes its uploads with it.
static inline VipsImage *melon_vips_noise(int width, int height) {
    VipsImage *noise = NULL, *rgb = NULL, *out = NULL;
    if (vips_gaussnoise(&noise, width, height, "mean", 128.0, "sigma", 40.0, NULL)) return NULL;
    VipsImage *bands[3] = { noise, noise, noise };
    int failed = vips_bandjoin(bands, &rgb, 3, NULL);
    g_object_unref(noise);
    if (failed) return NULL;
    failed = vips_cast_uchar(rgb, &out, NULL);
    g_object_unref(rgb);
    return failed ? NULL : out;
}

/// An HEIC (HEVC) file of `image`: tests make their iPhone-like uploads with it.
static inline int melon_vips_save_heic(VipsImage *image, void **bytes, size_t *length) {
    return vips_heifsave_buffer(image, bytes, length, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_HEVC, "Q", 50, NULL);
}

/// The text metadata field `name`, or NULL.
static inline const char *melon_vips_text(VipsImage *image, const char *name) {
    const char *value = NULL;
    if (vips_image_get_typeof(image, name) == 0 || vips_image_get_string(image, name, &value)) return NULL;
    return value;
}

/// Whether `image` has a metadata field `name`.
static inline int melon_vips_has(VipsImage *image, const char *name) { return vips_image_get_typeof(image, name) != 0; }

static inline int melon_vips_width(VipsImage *image) { return vips_image_get_width(image); }
static inline int melon_vips_height(VipsImage *image) { return vips_image_get_height(image); }
static inline void melon_vips_release(VipsImage *image) { g_object_unref(image); }
static inline void melon_vips_free(void *bytes) { g_free(bytes); }

/// libvips's last error, taken and cleared under its lock (libvips keeps one for the process); the
/// result is freed with `melon_vips_free`.
static inline char *melon_vips_take_error(void) { return vips_error_buffer_copy(); }
