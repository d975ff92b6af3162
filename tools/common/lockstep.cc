#include "tools/common/lockstep.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace mjportal::tools {
namespace {

template <typename T>
bool SameBits(const T* a, const T* b, int n) {
  return n <= 0 || std::memcmp(a, b, sizeof(T) * n) == 0;
}

// The first contact field that differs between a and b, or nullptr.
const char* ContactDifference(const mjContact& a, const mjContact& b) {
  if (!SameBits(&a.dist, &b.dist, 1))
    return "contact.dist";
  if (!SameBits(a.pos, b.pos, 3))
    return "contact.pos";
  if (!SameBits(a.frame, b.frame, 9))
    return "contact.frame";
  if (!SameBits(a.geom, b.geom, 2))
    return "contact.geom";
  if (!SameBits(a.flex, b.flex, 2) || !SameBits(a.elem, b.elem, 2) || !SameBits(a.vert, b.vert, 2))
    return "contact.flex/elem/vert";
  if (!SameBits(&a.includemargin, &b.includemargin, 1))
    return "contact.includemargin";
  if (!SameBits(&a.mu, &b.mu, 1) || !SameBits(a.friction, b.friction, 5))
    return "contact.friction";
  if (!SameBits(a.solref, b.solref, mjNREF) ||
      !SameBits(a.solreffriction, b.solreffriction, mjNREF))
    return "contact.solref";
  if (!SameBits(a.solimp, b.solimp, mjNIMP))
    return "contact.solimp";
  if (a.dim != b.dim)
    return "contact.dim";
  if (a.exclude != b.exclude)
    return "contact.exclude";
  return nullptr;
}

double MaxAbsDiff(const mjtNum* a, const mjtNum* b, int n) {
  double result = 0;
  for (int i = 0; i < n; ++i) {
    result = std::max(result, std::fabs(a[i] - b[i]));
  }
  return result;
}

}  // namespace

std::string FirstDifference(const mjModel* m1, const mjData* d1, const mjModel* m2,
                            const mjData* d2) {
  if (m1->nq != m2->nq || m1->nv != m2->nv || m1->na != m2->na)
    return "model dimensions";
  if (d1->ncon != d2->ncon)
    return "ncon";
  for (int i = 0; i < d1->ncon; ++i) {
    if (const char* field = ContactDifference(d1->contact[i], d2->contact[i])) {
      return field;
    }
  }
  if (d1->nefc != d2->nefc)
    return "nefc";
  if (!SameBits(d1->qpos, d2->qpos, m1->nq))
    return "qpos";
  if (!SameBits(d1->qvel, d2->qvel, m1->nv))
    return "qvel";
  if (!SameBits(d1->act, d2->act, m1->na))
    return "act";
  if (!SameBits(d1->qacc, d2->qacc, m1->nv))
    return "qacc";
  if (m1->nsensordata != m2->nsensordata)
    return "model dimensions";
  if (!SameBits(d1->sensordata, d2->sensordata, m1->nsensordata))
    return "sensordata";  // distance sensors measure through the collision table
  return "";
}

LockstepReport RunLockstep(const mjModel* m_stock, mjData* d_stock, const mjModel* m_plugin,
                           mjData* d_plugin, int steps) {
  LockstepReport report;
  long long contacts = 0, plugin_contacts = 0;
  for (int step = 1; step <= steps; ++step) {
    mj_step(m_stock, d_stock);
    mj_step(m_plugin, d_plugin);
    contacts += d_stock->ncon;
    plugin_contacts += d_plugin->ncon;
    if (report.first_divergence_step < 0) {
      std::string field = FirstDifference(m_stock, d_stock, m_plugin, d_plugin);
      if (!field.empty()) {
        report.first_divergence_step = step;
        report.first_divergence_field = field;
      }
    }
    report.max_abs_dqpos =
        std::max(report.max_abs_dqpos, MaxAbsDiff(d_stock->qpos, d_plugin->qpos, m_stock->nq));
    report.max_abs_dqvel =
        std::max(report.max_abs_dqvel, MaxAbsDiff(d_stock->qvel, d_plugin->qvel, m_stock->nv));
  }
  report.steps = steps;
  report.contacts_per_step = steps > 0 ? static_cast<double>(contacts) / steps : 0;
  report.plugin_contacts_per_step = steps > 0 ? static_cast<double>(plugin_contacts) / steps : 0;
  return report;
}

}  // namespace mjportal::tools
