"""The fast renderer's GLSL: pyrender's metallic-roughness lighting for directional lights, evaluated
once per vertex instead of once per pixel, and the hole cut-out as an alpha test.

Why: on a CPU (Mesa llvmpipe) pyrender's fragment shader is most of the cost of a frame, yet every
face of the paper is flat and lit by one directional light from the camera, so its colour barely
varies across a face: lighting the three corners and interpolating gives the same 8-bit pixels (the
pixel test in tests/test_frames.py compares against pyrender's own shader). The formulas are those of
pyrender 0.1.45's mesh.frag (same uniforms, same BRDF, same gamma), restricted to what the sheet
uses: a metallic-roughness material, directional lights, ambient light, an optional base-colour
single-channel texture holding the hole mask (`scene.paper_materials(..., channels="R")`): fragments
under `MASK_CUTOFF` are discarded, as by the alpha test `scene.offscreen_renderer` adds to pyrender's.

The fragment shader has two variants of one source, chosen by its PAINTED switch (`fragment`):
`FRAGMENT` (the mask in the red channel cuts the lit paper) and `PAINTED_FRAGMENT` (an RGBA
texture: its RGB multiplies the lit colour, the paint of a family look's paper in render/items.py,
and its alpha cuts). A renderer takes either (`scene.SheetRenderer(..., fragment=...)`).

They are compiled by pyrender's own ShaderProgramCache under its file names (mesh.vert/mesh.frag),
which is how pyrender passes its #defines (NORMAL_LOC, TEXCOORD_0_LOC, HAS_BASE_COLOR_TEX, ...).
"""

from __future__ import annotations

#: the material uniform, declared identically in both stages (GLSL links a uniform struct only if it is)
_MATERIAL = """struct Material {
    vec3 emissive_factor;
    vec4 base_color_factor;
    float metallic_factor;
    float roughness_factor;
#ifdef HAS_BASE_COLOR_TEX
    sampler2D base_color_texture;
#endif
};
uniform Material material;"""

#: the mesh vertex shader: position, normal and texture coordinate through, and the lit colour
VERTEX = """#version 330 core
struct DirectionalLight { vec3 color; float intensity; vec3 direction; };
MATERIAL
uniform DirectionalLight directional_lights[MAX_DIRECTIONAL_LIGHTS];
uniform int n_directional_lights;
uniform vec3 cam_pos;
uniform vec3 ambient_light;
uniform mat4 M;
uniform mat4 V;
uniform mat4 P;

layout(location = 0) in vec3 position;
layout(location = NORMAL_LOC) in vec3 normal;
#ifdef TEXCOORD_0_LOC
layout(location = TEXCOORD_0_LOC) in vec2 texcoord_0;
out vec2 uv_0;
#endif
layout(location = INST_M_LOC) in mat4 inst_m;
out vec3 lit;

const float PI = 3.141592653589793;
const float min_roughness = 0.04;

void main()
{
    vec4 world = M * inst_m * vec4(position, 1.0);
    gl_Position = P * V * world;
    vec3 n = normalize(vec3(transpose(inverse(M * inst_m)) * vec4(normal, 0.0)));
#ifdef TEXCOORD_0_LOC
    uv_0 = texcoord_0;
#endif
    vec3 base = material.base_color_factor.rgb;
    float roughness = clamp(material.roughness_factor, min_roughness, 1.0);
    float metallic = clamp(material.metallic_factor, 0.0, 1.0);
    vec3 c_diff = mix(vec3(0.0), base * (1.0 - min_roughness), 1.0 - metallic);
    vec3 f0 = mix(vec3(min_roughness), base, metallic);
    vec3 v = normalize(cam_pos - world.xyz);
    vec3 color = vec3(0.0);
    for (int i = 0; i < n_directional_lights; i++) {
        vec3 l = normalize(-1.0 * directional_lights[i].direction);
        vec3 h = normalize(l + v);
        float nl = clamp(dot(n, l), 0.001, 1.0);
        float nv = clamp(abs(dot(n, v)), 0.001, 1.0);
        float nh = clamp(dot(n, h), 0.0, 1.0);
        float vh = clamp(dot(v, h), 0.0, 1.0);
        vec3 F = f0 + (1.0 - f0) * pow(clamp(1.0 - vh, 0.0, 1.0), 5.0);
        float r = roughness + 1.0;
        float k = r * r / 8.0;
        float G = nv / (nv * (1.0 - k) + k) * (nl / (nl * (1.0 - k) + k));
        float a = roughness * roughness;
        float a2 = a * a;
        float d = nh * nh * (a2 - 1.0) + 1.0;
        float D = a2 / (PI * d * d);
        vec3 radiance = directional_lights[i].intensity * directional_lights[i].color;
        color += nl * radiance * ((1.0 - F) * c_diff / PI + F * G * D / (4.0 * nl * nv + 0.001));
    }
    color += base * ambient_light;
    color += material.emissive_factor * material.emissive_factor;
    lit = clamp(pow(color, vec3(1.0 / 2.2)), 0.0, 1.0);
}
"""

#: the mesh fragment shader: the interpolated colour, cut where the texture's alpha is under the
#: cutoff; with PAINTED 1, also multiplied by the texture's RGB. PAINTED is a GLSL `#if` (pyrender
#: resolves every `#ifdef` itself, against its own defines only), set by `fragment`.
_FRAGMENT = """#version 330 core
#define PAINTED PAINT_SWITCH
MATERIAL
in vec3 lit;
#ifdef TEXCOORD_0_LOC
in vec2 uv_0;
#endif
out vec4 frag_color;

void main()
{
    float alpha = material.base_color_factor.a;
#if PAINTED
    vec3 paint = vec3(1.0);
#endif
#ifdef HAS_BASE_COLOR_TEX
#if PAINTED
    vec4 texel = texture(material.base_color_texture, uv_0);
    paint = texel.rgb;
    alpha *= texel.a;
#else
    alpha *= texture(material.base_color_texture, uv_0).r;  // the hole mask, in the red channel
#endif
    if (alpha < MASK_CUTOFF) discard;
#endif
#if PAINTED
    frag_color = vec4(lit * paint, clamp(alpha, 0.0, 1.0));
#else
    frag_color = vec4(lit, clamp(alpha, 0.0, 1.0));
#endif
}
"""


def fragment(painted: bool = False) -> str:
    """The mesh fragment shader's GLSL: the hole mask in the red channel cuts the lit paper, or
    (`painted`) an RGBA texture paints it (RGB multiplies the lit colour) and its alpha cuts it.
    MASK_CUTOFF is left as a name (`scene` fills it in)."""
    return _FRAGMENT.replace("PAINT_SWITCH", "1" if painted else "0", 1).replace("MATERIAL", _MATERIAL, 1)


VERTEX = VERTEX.replace("MATERIAL", _MATERIAL, 1)
#: the fast renderer's fragment shader: the hole mask cuts the lit paper
FRAGMENT = fragment()
#: the painted variant: the texture's RGB multiplies the lit paper (a family look's paint)
PAINTED_FRAGMENT = fragment(painted=True)
