// Loader family: both relocated archives compared byte for byte, and the original's tables checked
// against an expectation derived from the files and the original's heap, never from the tables
// themselves. The original's initialise_3d_objects_ has run.
//
// What the original must have done (rel.layout, rel.textures):
// - 3DOBJS.BIN is one live heap allocation of the file's size whose bytes are the file relocated for
//   that allocation's address; object_archive/object_archive_size name it and object_table holds,
//   per slot, that address + the record's offset (0 for an empty slot).
// - Every populated texture slot of OBJTEXT.BIN has its own live heap allocation of 12 + pixels
//   bytes holding the file's descriptor and pixels with header word 2 rewritten to the allocation's
//   address + 12; texture_table holds, per slot, that allocation (0 for an empty slot).
// The expected address of each is found in the emu heap's allocation list (emu::GuestHeap) by
// content: the live allocation of the right size whose bytes equal the file's relocated for it
// (each allocation answers for one slot only). Among several with the same bytes (identical
// textures) the one the original's table names is taken, else the first made, since they can't be
// told apart. When none holds the bytes, the expected address is the original's own if it starts a
// live allocation of the right size (so the byte comparison shows what is wrong in it), else one
// whose pixels match with a wrong header word, else 0: no allocation holds the texture, and the
// table diverges at that slot. An image whose runtime carves its allocations from large blocks of
// its own gives emu the blocks only: then the place is looked for inside the larger live
// allocations (AllocationMatcher::find_inside), and the original's own place inside one is compared
// when none holds the bytes.
#include "family/families.hpp"
#include "refcheck/harness/phase.hpp"

#include "refcheck/reimpl/relocation.hpp"

#include <algorithm>
#include <deque>
#include <functional>
#include <set>
#include <span>

namespace refcheck::harness {

namespace {
std::vector<std::uint8_t> words(std::span<const std::uint32_t> v) {
    std::vector<std::uint8_t> out;
    for (std::uint32_t w : v)
        for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(w >> (8 * i)));
    return out;
}

// A table global's first `count` words, at most `capacity` of them (a wild count reads no further).
std::vector<std::uint32_t> guest_words(Original& o, const std::string& global, std::uint32_t count,
                                       std::uint32_t capacity) {
    std::vector<std::uint32_t> out(std::min(count, capacity));
    for (std::uint32_t i = 0; i < out.size(); ++i) out[i] = o.u32(global, i);
    return out;
}

// The original's live heap allocations, by content (see the comment at the top of the file).
class AllocationMatcher {
public:
    explicit AllocationMatcher(Original& o) : o_(o) {}

    using Expected = std::function<std::vector<std::uint8_t>(std::uint32_t address)>;

    // The allocation that holds `expected(address)` (`size` bytes), preferring `named` among equals;
    // `near` accepts an allocation whose bytes are wrong in a way the comparison should show. Last,
    // a place inside a larger live allocation: an image whose runtime carves its allocations from
    // large blocks of its own (a Watcom runtime's malloc does) gives emu's heap the blocks only.
    std::uint32_t find(std::uint64_t size, std::uint32_t named, const Expected& expected,
                       const std::function<bool(const std::vector<std::uint8_t>&)>& near = {}) {
        std::vector<const emu::Allocation*> sized, larger;
        for (const emu::Allocation& a : o_.machine().heap().allocations()) {
            if (a.freed || claimed_.count(a.address)) continue;
            if (a.size == size) sized.push_back(&a);
            if (a.size > size) larger.push_back(&a);
        }
        std::optional<std::uint32_t> exact;
        for (const emu::Allocation* a : sized) {
            if (o_.bytes(a->address, a->size) != expected(a->address)) continue;
            if (!exact || a->address == named) exact = a->address;
            if (a->address == named) break;
        }
        if (exact) return claim(*exact);
        for (const emu::Allocation* a : sized)
            if (a->address == named) return claim(named);
        if (near)
            for (const emu::Allocation* a : sized)
                if (near(o_.bytes(a->address, a->size))) return claim(a->address);
        if (const auto inside = find_inside(larger, size, named, expected)) return claim(*inside);
        // The original's own, where a larger live allocation holds it: its bytes show what is wrong.
        for (const emu::Allocation* a : larger)
            if (named >= a->address && std::uint64_t{named} + size <= a->end() && !claimed_.count(named))
                return claim(named);
        return 0;
    }

private:
    // A place inside one of `larger` whose `size` bytes are `expected(place)`, the original's own
    // (`named`) first. Candidates are where the bytes that do not depend on the address (a run of
    // them, found by relocating for two addresses) occur; each is checked whole.
    std::optional<std::uint32_t> find_inside(const std::vector<const emu::Allocation*>& larger,
                                             std::uint64_t size, std::uint32_t named,
                                             const Expected& expected) {
        if (larger.empty() || size == 0) return std::nullopt;
        const auto holds = [&](std::uint32_t at) {
            return !claimed_.count(at) && o_.bytes(at, static_cast<std::size_t>(size)) == expected(at);
        };
        for (const emu::Allocation* a : larger)
            if (named >= a->address && std::uint64_t{named} + size <= a->end() && holds(named)) return named;
        // The anchor: of the runs equal in both (their first 64 bytes), the one with the most
        // distinct byte values, then the longest: a run of one value (blank pixels) would be found
        // everywhere in a block of zeros.
        const std::vector<std::uint8_t> one = expected(0x10000000), two = expected(0x20000000);
        std::size_t best = 0, best_length = 0, best_distinct = 0;
        for (std::size_t i = 0; i < one.size();) {
            std::size_t j = i;
            while (j < one.size() && j < two.size() && one[j] == two[j]) ++j;
            const std::size_t length = std::min<std::size_t>(j - i, 64);
            const std::set<std::uint8_t> values(one.begin() + static_cast<std::ptrdiff_t>(i),
                                                one.begin() + static_cast<std::ptrdiff_t>(i + length));
            if (std::pair(values.size(), length) > std::pair(best_distinct, best_length))
                best = i, best_length = length, best_distinct = values.size();
            i = j + 1;
        }
        if (best_length < 4) return std::nullopt; // nothing to search by
        const std::size_t length = best_length;
        const auto anchor = std::span(one).subspan(best, length);
        for (const emu::Allocation* a : larger) {
            const std::vector<std::uint8_t> block = o_.bytes(a->address, a->size);
            for (auto hit = std::search(block.begin(), block.end(), anchor.begin(), anchor.end());
                 hit != block.end(); hit = std::search(hit + 1, block.end(), anchor.begin(), anchor.end())) {
                const auto offset = static_cast<std::uint64_t>(hit - block.begin());
                if (offset < best || offset - best + size > a->size) continue;
                const auto at = static_cast<std::uint32_t>(a->address + (offset - best));
                if (holds(at)) return at;
            }
        }
        return std::nullopt;
    }

    std::uint32_t claim(std::uint32_t address) {
        claimed_.insert(address);
        return address;
    }
    Original& o_;
    std::set<std::uint32_t> claimed_;
};
} // namespace

namespace {
// Everything the loaded archives must be, compared as one input (`input`: "load", or
// "re-initialised" for the second load, whose buffers' names end in `again`), `extra` last.
void compare_loaded(CaseContext& ctx, const std::string& input, const std::string& again,
                    std::vector<BufferPair> extra = {}) {
    Original& o = ctx.original;
    std::deque<std::vector<std::uint8_t>> held; // the bytes the pairs look at
    std::vector<BufferPair> pairs;
    auto add = [&](const char* kind, const std::string& name, std::vector<std::uint8_t> original,
                   std::vector<std::uint8_t> reimpl) {
        const auto& a = held.emplace_back(std::move(original));
        const auto& b = held.emplace_back(std::move(reimpl));
        pairs.push_back({kind, name, a, b});
    };
    AllocationMatcher heap(o);

    const auto models = reimpl::ModelArchive::parse(ctx.models);
    const std::uint32_t named_base = o.u32("object_archive");
    const std::uint32_t named_size = o.u32("object_archive_size");
    const std::uint32_t base = heap.find(ctx.models.size(), named_base, [&](std::uint32_t at) {
        return reimpl::relocate_models(models, at).bytes;
    });
    const std::uint32_t expected_size = static_cast<std::uint32_t>(ctx.models.size());
    const auto relocated = in_phase(Phase::reimpl, [&] { return reimpl::relocate_models(models, base); });
    add("archive", "3DDATA/3DOBJS.BIN" + again,
        base ? o.bytes(base, expected_size) : std::vector<std::uint8_t>{}, relocated.bytes);
    add("table", "object_archive" + again, words(std::vector<std::uint32_t>{named_base, named_size}),
        words(std::vector<std::uint32_t>{base, expected_size}));
    const std::uint32_t object_count = o.u32("object_count");
    add("table", "object_table" + again,
        words(guest_words(o, "object_table", object_count, models.count() + 1)),
        words(relocated.object_table));

    const auto textures = reimpl::TextureArchive::parse(ctx.textures);
    const std::uint32_t texture_count = o.u32("texture_count");
    const auto table = guest_words(o, "texture_table", texture_count, textures.count() + 1);
    std::vector<std::uint32_t> expected_table(textures.count(), 0); // an empty slot: null
    for (std::uint32_t slot = 0; slot < textures.count(); ++slot)
        if (const reimpl::Texture* t = textures.find(slot))
            expected_table[slot] = heap.find(
                t->allocation_size(), slot < table.size() ? table[slot] : 0,
                [&](std::uint32_t a) { return reimpl::relocated_texture_bytes(*t, a); },
                [&](const std::vector<std::uint8_t>& bytes) {
                    return std::equal(t->pixels.begin(), t->pixels.end(),
                                      bytes.begin() + reimpl::kTextureHeaderSize);
                });
    add("table", "texture_table" + again, words(table), words(expected_table));
    std::uint64_t texture_bytes = 0, textures_populated = 0;
    for (std::uint32_t slot = 0; slot < textures.count(); ++slot) {
        const reimpl::Texture* t = textures.find(slot);
        if (!t) continue;
        ++textures_populated;
        // The original's bytes: the whole allocation that should hold this texture (none: nothing).
        const std::uint32_t at = expected_table[slot];
        std::vector<std::uint8_t> expected = reimpl::relocated_texture_bytes(*t, at);
        texture_bytes += expected.size();
        std::vector<std::uint8_t> original = at ? o.bytes(at, expected.size()) : std::vector<std::uint8_t>{};
        add("texture", "slot " + std::to_string(slot) + again, std::move(original), std::move(expected));
    }
    pairs.insert(pairs.end(), extra.begin(), extra.end());
    compare_buffers(ctx, input, pairs);

    if (!again.empty()) return;
    // The census of what was loaded, as each side holds it: the original's from its own tables and
    // heap (object_table entries set, object_archive_size, texture_count, texture_table entries set
    // and the sizes of the allocations they point into, or their descriptors' inside a larger block),
    // the reimplementation's from its parse. It
    // was the reimplementation's figures alone, printed as the case's.
    std::uint32_t populated = 0, original_records = 0, original_textures = 0;
    std::uint64_t original_texture_bytes = 0;
    for (std::uint32_t i = 0; i < models.count(); ++i) populated += models.populated(i) ? 1 : 0;
    auto capacity = [&o](const char* global) { return o.profile().data.at(global).size / 4; };
    for (const std::uint32_t entry : guest_words(o, "object_table", object_count, capacity("object_table")))
        original_records += entry != 0;
    for (const std::uint32_t entry :
         guest_words(o, "texture_table", texture_count, capacity("texture_table"))) {
        if (!entry) continue;
        ++original_textures;
        const emu::Allocation* a = o.machine().heap().containing(entry);
        if (a && a->address == entry) {
            original_texture_bytes += a->size;
        } else if (a) {
            // Inside a larger block of the image's own heap: the size its descriptor gives (the
            // profile's struct texture, tex.stride), not the block's.
            const Profile& p = o.profile();
            const auto field = [&](const char* name) {
                return o.machine().read_u32(entry + p.offset_of("texture", name));
            };
            const std::uint32_t type = field("type");
            original_texture_bytes +=
                p.struct_size("texture") + (type <= 2 ? (std::uint64_t{16} << type) * field("height") : 0);
        }
    }
    ctx.report["metrics"] = {{"model_records", two_sided(original_records, populated)},
                             {"model_archive_bytes", two_sided(named_size, ctx.models.size())},
                             {"texture_slots", two_sided(texture_count, textures.count())},
                             {"textures_populated", two_sided(original_textures, textures_populated)},
                             {"texture_bytes", two_sided(original_texture_bytes, texture_bytes)}};
}
} // namespace

void run_loader(CaseContext& ctx) {
    ctx.begins("load");
    compare_loaded(ctx, "load", "");
    if (!ctx.c.reinitialise) return;
    // A second initialise_3d_objects_ (abi.init_objects: it releases the archive and textures it
    // loaded before, then loads again): the archives, tables and textures it leaves are compared as
    // the first load's were, the released allocations out of the matcher's reach.
    ctx.begins("re-initialised");
    // The first load's allocations, as the original's own globals name them: the archive's and
    // each texture table entry's (emu's heap never reuses freed memory, so an allocation is told by
    // its number). Only an allocation that starts where the global points is the original's own:
    // one inside a larger block (an image whose runtime carves its allocations from blocks of its
    // own) is released to that runtime, which emu does not see, so its release is not observable.
    Original& o = ctx.original;
    const emu::GuestHeap& heap = o.machine().heap();
    std::vector<std::uint32_t> first_load;
    std::uint64_t unobservable = 0;
    auto note = [&](std::uint32_t address) {
        const emu::Allocation* a = address ? heap.containing(address) : nullptr;
        if (!a || a->freed) return;
        if (a->address != address) {
            ++unobservable;
            return;
        }
        if (std::find(first_load.begin(), first_load.end(), a->index) == first_load.end())
            first_load.push_back(a->index);
    };
    note(o.u32("object_archive"));
    // The texture table's entries as the original holds them now (its count, at most its capacity).
    auto texture_entries = [&o] {
        return guest_words(o, "texture_table", o.u32("texture_count"),
                           o.profile().data.at("texture_table").size / 4);
    };
    for (const std::uint32_t entry : texture_entries()) note(entry);
    const std::size_t made_before = heap.allocations().size();
    const auto again = o.call("initialise_3d_objects_", {});
    require_success(ctx, again, "initialise_3d_objects_ (a second time)", Expect::Zero);
    // rel.textures: OBJTEXT.BIN is read whole into a temporary buffer, which is freed. A live
    // allocation the second load made of exactly the file's size that neither the archive's global
    // nor a texture table entry points into is that buffer, kept (an image that carves its
    // allocations from blocks of its own frees it to its runtime, unseen: nothing to find). No event
    // showed a leaked buffer: the textures copied out of it were all in place.
    std::vector<std::uint32_t> named{o.u32("object_archive")};
    for (const std::uint32_t entry : texture_entries())
        if (entry) named.push_back(entry);
    std::vector<std::uint32_t> kept_buffers;
    for (std::size_t k = made_before; k < heap.allocations().size(); ++k) {
        const emu::Allocation& a = heap.allocations()[k];
        if (a.freed || a.size != ctx.textures.size()) continue;
        if (std::none_of(named.begin(), named.end(),
                         [&](std::uint32_t at) { return at >= a.address && at < a.end(); }))
            kept_buffers.push_back(a.size);
    }
    // It released them (abi.init_objects.again): the addresses of those still live after the second
    // load, none. A second load that leaked the first left equal bytes in new allocations and passed.
    // Compared only when some release can be seen: an empty list against none proves nothing (the
    // rule's predicate needs this event). The last event of the input.
    std::vector<std::uint8_t> still_live;
    const std::vector<std::uint8_t> kept_sizes = words(kept_buffers);
    std::vector<BufferPair> released{
        {"table", "OBJTEXT.BIN buffers left by the load (re-initialised)", kept_sizes, {}}};
    if (!first_load.empty()) {
        std::vector<std::uint32_t> live;
        for (const emu::Allocation& a : heap.allocations())
            if (!a.freed && std::find(first_load.begin(), first_load.end(), a.index) != first_load.end())
                live.push_back(a.address);
        still_live = words(live);
        released.push_back({"table", "first load still allocated (re-initialised)", still_live, {}});
    }
    compare_loaded(ctx, "re-initialised", " (re-initialised)", std::move(released));
    if (unobservable) ctx.report["metrics"]["first_load_release_unobservable"] = unobservable;
    ctx.report["metrics"]["reinitialised"] = true;
}

} // namespace refcheck::harness
