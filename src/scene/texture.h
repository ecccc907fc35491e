// d4r scene (internal): procedural surface patterns, the fine detail an upscaler must resolve.
//
// Patterns are functions of 2D surface coordinates (u, v) in metres (v "up" on walls), chosen to be
// hard for upscalers: fine checkers and line grids (moire), text-like glyph rows (5x7 letters),
// stripes, building facades with HDR-emissive windows, and a street with lane markings and painted
// text. All are pure functions of (u, v): the same surface point always gets the same colour.
#pragma once

#include <cstdint>

#include "scene/vec.h"

namespace d4r::scene {

enum class Texture { Solid, Checker, Grid, Text, Stripes, Facade, Street };

struct Material {
    Texture texture = Texture::Solid;
    Vec3 a{0.5f, 0.5f, 0.5f}; // base colour (albedo)
    Vec3 b{0.1f, 0.1f, 0.1f}; // pattern colour (ink, lines, windows)
    float scale = 1.0f;       // features per metre; for Text the line height in metres
    float specular = 0.04f;   // Blinn-Phong weight
    float shininess = 32.0f;
    // HDR glow: Facade's lit windows emit b * emission; Solid emits a * emission (a lamp); Checker,
    // Grid, Text and Stripes emit b * emission where the pattern colour b is (an LED sign).
    float emission = 0.0f;
};

struct SurfaceColor {
    Vec3 albedo;
    Vec3 emission;
};

SurfaceColor texture_color(const Material& material, float u, float v);

// True where 5x7 glyph text with the given line height has ink at (u, v) (v up; lines run along u).
bool glyph_ink(float u, float v, float line_height);

uint32_t hash2(int32_t a, int32_t b);

} // namespace d4r::scene
