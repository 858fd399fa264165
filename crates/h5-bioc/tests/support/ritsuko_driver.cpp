// Runs ritsuko's HDF5 checks on one file: the oracle of tests/ritsuko.rs.
//
// Built at test time against ritsuko's headers (from the `assorthead` PyPI package, installed
// by `cargo xtask install-oracles`) and libhdf5's C++ library. Usage:
//
//     ritsuko_driver FILE < queries
//
// One query a line, tab-separated words: the command, then its arguments (an object path, an
// attribute name or "-" for the object itself, ...). One answer a line: "ok<TAB>RESULT" or
// "err<TAB>MESSAGE" when ritsuko throws. Strings are printed as the hex of their bytes, lists
// comma-separated, floats as the hex of their float64 bits.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "H5Cpp.h"
#include "ritsuko/choose_missing_placeholder.hpp"
#include "ritsuko/hdf5/hdf5.hpp"
#include "ritsuko/hdf5/vls/vls.hpp"
#include "ritsuko/r_missing_value.hpp"

namespace {

std::string hex(const std::string& s) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned char c : s) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) {
        if (i) {
            out += ",";
        }
        out += v[i];
    }
    return out;
}

std::string bits(double x) {
    uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(b));
    return buf;
}

std::string truth(bool b) { return b ? "true" : "false"; }

bool is_group(const H5::H5File& f, const std::string& path) {
    return path == "/" || f.childObjType(path) == H5O_TYPE_GROUP;
}

H5::Attribute attribute(const H5::H5File& f, const std::string& obj, const std::string& name) {
    if (is_group(f, obj)) {
        return f.openGroup(obj).openAttribute(name);
    }
    return f.openDataSet(obj).openAttribute(name);
}

H5::Group parent_group(const H5::H5File& f, const std::string& path) { return f.openGroup(path); }

template <typename T>
std::string numbers(const std::vector<T>& v) {
    std::vector<std::string> out;
    for (auto x : v) {
        if constexpr (std::is_floating_point<T>::value) {
            out.push_back(bits(x));
        } else {
            out.push_back(std::to_string(static_cast<long long>(x)));
        }
    }
    return join(out);
}

template <typename T>
std::string load_numbers(const H5::DataSet& d) {
    if (ritsuko::hdf5::is_scalar(d)) {
        return numbers(std::vector<T>{ritsuko::hdf5::load_scalar_numeric_dataset<T>(d)});
    }
    return numbers(ritsuko::hdf5::load_1d_numeric_dataset<T>(d, 10000));
}

template <typename T>
std::string load_numbers(const H5::Attribute& a) {
    if (ritsuko::hdf5::is_scalar(a)) {
        return numbers(std::vector<T>{ritsuko::hdf5::load_scalar_numeric_attribute<T>(a)});
    }
    return numbers(ritsuko::hdf5::load_1d_numeric_attribute<T>(a));
}

template <class H>
std::string load_numbers_as(const H& h, const std::string& type) {
    if (type == "i8") return load_numbers<int8_t>(h);
    if (type == "u8") return load_numbers<uint8_t>(h);
    if (type == "i16") return load_numbers<int16_t>(h);
    if (type == "u16") return load_numbers<uint16_t>(h);
    if (type == "i32") return load_numbers<int32_t>(h);
    if (type == "u32") return load_numbers<uint32_t>(h);
    if (type == "i64") return load_numbers<int64_t>(h);
    if (type == "u64") return load_numbers<uint64_t>(h);
    if (type == "f32") return load_numbers<float>(h);
    if (type == "f64") return load_numbers<double>(h);
    throw std::runtime_error("driver: unknown type " + type);
}

template <typename T>
std::string load_placeholder(const H5::DataSet& d, const std::string& name) {
    auto p = ritsuko::hdf5::open_and_load_optional_numeric_missing_placeholder<T>(d, name.c_str());
    if (!p.has_value()) {
        return "none";
    }
    return numbers(std::vector<T>{*p});
}

template <typename T>
std::vector<T> values_of(const H5::DataSet& d) {
    return ritsuko::hdf5::load_1d_numeric_dataset<T>(d, 10000);
}

template <typename T>
std::string choose_int(const H5::DataSet& d) {
    auto v = values_of<T>(d);
    auto r = ritsuko::choose_missing_integer_placeholder(v.begin(), v.end());
    return r.first ? std::to_string(static_cast<long long>(r.second)) : "none";
}

template <typename T>
std::string choose_int_masked(const H5::DataSet& d, const H5::DataSet& m) {
    auto v = values_of<T>(d);
    auto mask = values_of<uint8_t>(m);
    auto r = ritsuko::choose_missing_integer_placeholder(v.begin(), v.end(), mask.begin());
    return r.first ? std::to_string(static_cast<long long>(r.second)) : "none";
}

std::string choose_float_masked(const H5::DataSet& d, const H5::DataSet& m, bool skip_nan) {
    auto v = values_of<double>(d);
    auto mask = values_of<uint8_t>(m);
    auto r = ritsuko::choose_missing_float_placeholder(v.begin(), v.end(), mask.begin(), skip_nan);
    return r.first ? bits(r.second) : "none";
}

template <typename T>
std::string choose_float(const H5::DataSet& d, bool skip_nan) {
    auto v = values_of<T>(d);
    auto r = ritsuko::choose_missing_float_placeholder(v.begin(), v.end(), skip_nan);
    return r.first ? bits(static_cast<double>(r.second)) : "none";
}

// The missing mask as ritsuko's clients compute it: values loaded as double, the placeholder
// loaded by open_and_load_optional_numeric_missing_placeholder, a NaN placeholder matched by
// are_floats_identical and any other by ==.
std::string float_mask(const H5::DataSet& d, const std::string& name) {
    auto p = ritsuko::hdf5::open_and_load_optional_numeric_missing_placeholder<double>(d, name.c_str());
    auto v = values_of<double>(d);
    std::string out;
    for (auto x : v) {
        bool missing = false;
        if (p.has_value()) {
            missing = std::isnan(*p) ? ritsuko::are_floats_identical(&x, &*p) : x == *p;
        }
        out += missing ? '1' : '0';
    }
    return out;
}

std::string string_mask(const H5::DataSet& d, const std::string& name) {
    auto p = ritsuko::hdf5::open_and_load_optional_string_missing_placeholder(d, name.c_str());
    auto v = ritsuko::hdf5::load_1d_string_dataset(d, 10000);
    std::string out;
    for (const auto& x : v) {
        out += (p.has_value() && x == *p) ? '1' : '0';
    }
    return out;
}

std::string answer(const H5::H5File& f, const std::vector<std::string>& q) {
    const std::string& cmd = q.at(0);
    auto arg = [&](size_t i) -> const std::string& { return q.at(i); };
    auto num = [&](size_t i) { return static_cast<size_t>(std::stoul(q.at(i))); };
    bool on_attr = q.size() > 2 && arg(2) != "-";

    if (cmd == "int_limit") {
        bool is_signed = arg(4) == "1";
        if (on_attr) {
            return truth(ritsuko::hdf5::exceeds_integer_limit(attribute(f, arg(1), arg(2)), num(3), is_signed));
        }
        return truth(ritsuko::hdf5::exceeds_integer_limit(f.openDataSet(arg(1)), num(3), is_signed));
    }
    if (cmd == "float_limit") {
        if (on_attr) {
            return truth(ritsuko::hdf5::exceeds_float_limit(attribute(f, arg(1), arg(2)), num(3)));
        }
        return truth(ritsuko::hdf5::exceeds_float_limit(f.openDataSet(arg(1)), num(3)));
    }
    if (cmd == "utf8") {
        if (on_attr) {
            return truth(ritsuko::hdf5::is_utf8_string(attribute(f, arg(1), arg(2))));
        }
        return truth(ritsuko::hdf5::is_utf8_string(f.openDataSet(arg(1))));
    }
    if (cmd == "load_str") {
        std::vector<std::string> v;
        if (on_attr) {
            auto a = attribute(f, arg(1), arg(2));
            if (ritsuko::hdf5::is_scalar(a)) {
                v.push_back(ritsuko::hdf5::load_scalar_string_attribute(a));
            } else {
                v = ritsuko::hdf5::load_1d_string_attribute(a);
            }
        } else {
            auto d = f.openDataSet(arg(1));
            if (ritsuko::hdf5::is_scalar(d)) {
                v.push_back(ritsuko::hdf5::load_scalar_string_dataset(d));
            } else {
                v = ritsuko::hdf5::load_1d_string_dataset(d, 10000);
            }
        }
        for (auto& s : v) {
            s = hex(s);
        }
        return join(v);
    }
    if (cmd == "validate_str") {
        if (on_attr) {
            auto a = attribute(f, arg(1), arg(2));
            if (ritsuko::hdf5::is_scalar(a)) {
                ritsuko::hdf5::validate_scalar_string_attribute(a);
            } else {
                ritsuko::hdf5::validate_1d_string_attribute(a);
            }
        } else {
            auto d = f.openDataSet(arg(1));
            auto rank = d.getSpace().getSimpleExtentNdims();
            if (rank == 0) {
                ritsuko::hdf5::validate_scalar_string_dataset(d);
            } else if (rank == 1) {
                ritsuko::hdf5::validate_1d_string_dataset(d, 10000);
            } else {
                ritsuko::hdf5::validate_nd_string_dataset(d, 10000);
            }
        }
        return "valid";
    }
    if (cmd == "load_num") {
        if (on_attr) {
            return load_numbers_as(attribute(f, arg(1), arg(2)), arg(3));
        }
        return load_numbers_as(f.openDataSet(arg(1)), arg(3));
    }
    if (cmd == "num_ph") {
        auto d = f.openDataSet(arg(1));
        ritsuko::hdf5::check_numeric_missing_placeholder_attribute(d, d.openAttribute(arg(2)), arg(3) == "1");
        return "valid";
    }
    if (cmd == "load_num_ph") {
        auto d = f.openDataSet(arg(1));
        const std::string& t = arg(3);
        if (t == "i32") return load_placeholder<int32_t>(d, arg(2));
        if (t == "f64") return load_placeholder<double>(d, arg(2));
        throw std::runtime_error("driver: unknown type " + t);
    }
    if (cmd == "str_ph") {
        auto d = f.openDataSet(arg(1));
        ritsuko::hdf5::check_string_missing_placeholder_attribute(d.openAttribute(arg(2)));
        return "valid";
    }
    if (cmd == "load_str_ph") {
        auto p = ritsuko::hdf5::open_and_load_optional_string_missing_placeholder(f.openDataSet(arg(1)), arg(2).c_str());
        return p.has_value() ? hex(*p) : "none";
    }
    if (cmd == "float_mask") {
        return float_mask(f.openDataSet(arg(1)), arg(2));
    }
    if (cmd == "str_mask") {
        return string_mask(f.openDataSet(arg(1)), arg(2));
    }
    if (cmd == "vls_pointers") {
        ritsuko::hdf5::vls::open_pointers(parent_group(f, arg(1)), arg(2).c_str(), num(3), num(4));
        return "valid";
    }
    if (cmd == "vls_heap") {
        ritsuko::hdf5::vls::open_heap(parent_group(f, arg(1)), arg(2).c_str());
        return "valid";
    }
    if (cmd == "vls_read") {
        auto g = parent_group(f, arg(1));
        auto p = ritsuko::hdf5::vls::open_pointers(g, arg(2).c_str(), 64, 64);
        auto h = ritsuko::hdf5::vls::open_heap(g, arg(3).c_str());
        ritsuko::hdf5::vls::Stream1dArray<uint64_t, uint64_t> stream(&p, &h, num(4));
        std::vector<std::string> v;
        for (hsize_t i = 0; i < stream.length(); ++i, stream.next()) {
            v.push_back(hex(stream.get()));
        }
        return join(v);
    }
    if (cmd == "vls_validate") {
        auto g = parent_group(f, arg(1));
        auto p = ritsuko::hdf5::vls::open_pointers(g, arg(2).c_str(), 64, 64);
        hsize_t heap_length = std::stoull(arg(3));
        auto dims = ritsuko::hdf5::get_dimensions(p, false);
        if (dims.size() == 1) {
            ritsuko::hdf5::vls::validate_1d_array<uint64_t, uint64_t>(p, dims[0], heap_length, num(4));
        } else {
            ritsuko::hdf5::vls::validate_nd_array<uint64_t, uint64_t>(p, dims, heap_length, num(4));
        }
        return "valid";
    }
    if (cmd == "choose_int") {
        auto d = f.openDataSet(arg(1));
        const std::string& t = arg(2);
        if (t == "i8") return choose_int<int8_t>(d);
        if (t == "u8") return choose_int<uint8_t>(d);
        if (t == "i16") return choose_int<int16_t>(d);
        if (t == "u16") return choose_int<uint16_t>(d);
        if (t == "i32") return choose_int<int32_t>(d);
        if (t == "u32") return choose_int<uint32_t>(d);
        throw std::runtime_error("driver: unknown type " + t);
    }
    if (cmd == "choose_float") {
        auto d = f.openDataSet(arg(1));
        bool skip_nan = arg(3) == "1";
        if (arg(2) == "f32") return choose_float<float>(d, skip_nan);
        return choose_float<double>(d, skip_nan);
    }
    if (cmd == "choose_int_mask") {
        return choose_int_masked<int32_t>(f.openDataSet(arg(1)), f.openDataSet(arg(2)));
    }
    if (cmd == "choose_float_mask") {
        return choose_float_masked(f.openDataSet(arg(1)), f.openDataSet(arg(2)), arg(3) == "1");
    }
    throw std::runtime_error("driver: unknown command " + cmd);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: ritsuko_driver FILE < queries\n";
        return 2;
    }
    H5::Exception::dontPrint();
    H5::H5File f;
    try {
        f = ritsuko::hdf5::open_file(std::string(argv[1]));
    } catch (std::exception& e) {
        std::cerr << e.what() << "\n";
        return 1;
    }
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty()) {
            continue;
        }
        std::vector<std::string> q;
        std::stringstream ss(line);
        std::string word;
        while (std::getline(ss, word, '\t')) {
            q.push_back(word);
        }
        std::string out;
        try {
            out = "ok\t" + answer(f, q);
        } catch (std::exception& e) {
            out = std::string("err\t") + e.what();
        } catch (H5::Exception& e) {
            out = "err\t" + e.getDetailMsg();
        }
        for (auto& c : out) {
            if (c == '\n') {
                c = ' ';
            }
        }
        std::cout << out << "\n";
    }
    return 0;
}
