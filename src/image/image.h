// d4r image: a plain float image, the currency of the demo's image pipeline.
//
// Promise: Image is width x height pixels of `channels` interleaved floats, rows top to bottom,
// tightly packed (data.size() == width * height * channels). It holds whatever space the producer
// says: linear HDR (scene colour, ground truth) or display values in [0,1] (after tonemap()). The
// functions in this folder say which space they take and give.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace d4r::image {

struct Image {
    uint32_t width = 0;
    uint32_t height = 0;
    uint32_t channels = 0;
    std::vector<float> data;

    Image() = default;
    Image(uint32_t w, uint32_t h, uint32_t c, float fill = 0.0f)
        : width(w), height(h), channels(c), data(size_t(w) * h * c, fill) {}
    Image(uint32_t w, uint32_t h, uint32_t c, std::vector<float> values)
        : width(w), height(h), channels(c), data(std::move(values)) {}

    size_t index(uint32_t x, uint32_t y, uint32_t c) const { return (size_t(y) * width + x) * channels + c; }
    float& at(uint32_t x, uint32_t y, uint32_t c) { return data[index(x, y, c)]; }
    float at(uint32_t x, uint32_t y, uint32_t c) const { return data[index(x, y, c)]; }
    bool empty() const { return width == 0 || height == 0 || channels == 0; }
    // True when data holds exactly width * height * channels values.
    bool consistent() const { return data.size() == size_t(width) * height * channels; }
};

} // namespace d4r::image
