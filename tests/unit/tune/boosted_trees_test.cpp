// The boosted trees learn a function of a few features and ignore the noise features.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "client/tune/boosted_trees.h"

using namespace mrd::tune;

TEST_CASE("boosted trees: fit a smooth function of two of four features") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0, 8);
  auto f = [](const std::vector<double>& x) { return 2 * x[0] + std::sin(x[2]) * 3; };
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  for (int i = 0; i < 300; ++i) {
    std::vector<double> row{u(rng), u(rng), u(rng), u(rng)};
    y.push_back(f(row));
    x.push_back(std::move(row));
  }
  BoostedTrees trees;
  CHECK(!trees.trained());
  trees.fit(x, y);
  CHECK(trees.trained());
  double err = 0, spread = 0;
  for (int i = 0; i < 100; ++i) {
    std::vector<double> row{u(rng), u(rng), u(rng), u(rng)};
    double e = trees.predict(row) - f(row);
    err += e * e;
    spread += f(row) * f(row);
  }
  // Far better than predicting zero.
  CHECK(err < 0.05 * spread);
}

TEST_CASE("boosted trees: constant data and no data predict the mean") {
  BoostedTrees trees;
  CHECK(trees.predict({1, 2}) == 0.0);
  trees.fit({{1, 2}, {3, 4}, {5, 6}}, {4, 4, 4});
  CHECK(trees.predict({9, 9}) == Approx(4.0));
}

TEST_CASE("boosted trees: weights pull the fit toward the heavy samples") {
  // One feature value for all: no split, the prediction is the weighted mean.
  std::vector<std::vector<double>> x(4, std::vector<double>{1.0});
  std::vector<double> y{0, 0, 10, 10};
  BoostedTrees trees;
  trees.fit(x, y, std::vector<double>{3, 3, 1, 1});
  CHECK(trees.predict({1.0}) == Approx(2.5));
  trees.fit(x, y);
  CHECK(trees.predict({1.0}) == Approx(5.0));
}

TEST_CASE("boosted trees: unit weights fit as no weights") {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(0, 4);
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  for (int i = 0; i < 60; ++i) {
    x.push_back({u(rng), u(rng)});
    y.push_back(x.back()[0] * x.back()[1]);
  }
  BoostedTrees plain, weighted;
  plain.fit(x, y);
  weighted.fit(x, y, std::vector<double>(y.size(), 1.0));
  for (int i = 0; i < 20; ++i) {
    std::vector<double> row{u(rng), u(rng)};
    CHECK(weighted.predict(row) == plain.predict(row));
  }
}
